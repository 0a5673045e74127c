// Every log in tests/data/xray against llvm-xray's own output beside it.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

#include "formats/xray/record_printer.h"
#include "formats/xray/xray_pipeline.h"
#include "reference.h"
#include "test_support.h"

using namespace ttd::fmt::xray;
using namespace xray_test;

namespace {

std::string describe(const RefRecord& r) {
  std::ostringstream o;
  o << "{" << r.kind << " func " << r.func_id << " tsc " << r.tsc << " cpu " << r.cpu << " thread " << r.thread
    << " pid " << r.process << " type " << r.type << " args [";
  for (auto a : r.args) o << a << " ";
  o << "] data '" << r.data << "'}";
  return o.str();
}

// "" when equal, else where the two per-thread sequences first differ.
std::string first_difference(const std::map<uint64_t, std::vector<RefRecord>>& want,
                             const std::map<uint64_t, std::vector<RefRecord>>& got) {
  for (const auto& [tid, w] : want) {
    auto it = got.find(tid);
    if (it == got.end()) return "thread " + std::to_string(tid) + " missing";
    const auto& g = it->second;
    for (size_t i = 0; i < std::min(w.size(), g.size()); ++i)
      if (!(w[i] == g[i]))
        return "thread " + std::to_string(tid) + " record " + std::to_string(i) + ": want " + describe(w[i]) + " got " +
               describe(g[i]);
    if (w.size() != g.size())
      return "thread " + std::to_string(tid) + ": want " + std::to_string(w.size()) + " records, got " +
             std::to_string(g.size());
  }
  if (got.size() != want.size()) return "extra threads";
  return "";
}

std::string dump_of(const std::string& log, XrayReport& rep, ttd::Status& status) {
  // The printer needs the version (custom events differ): survey first.
  uint16_t version = survey_xray(log).header.version;
  std::ostringstream out;
  RecordPrinter printer(out, version);
  status = read_fdr_records(log, printer, &rep);
  return out.str();
}

std::string without_skipped_lines(const std::string& s) {
  std::istringstream in(s);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("<Skipped", 0) != 0) out += line + "\n";
  return out;
}

}  // namespace

TEST_CASE("every XRay log under tests/data/xray has a reference output") {
  auto logs = find_logs(data_dir());
  REQUIRE(logs.size() >= 25);
  for (const auto& log : logs) {
    INFO(log);
    CHECK((reference_for(log, ".yaml") || reference_for(log, ".fdr-dump.txt")));
  }
}

TEST_CASE("expanded records equal llvm-xray convert --output-format=yaml") {
  int compared = 0;
  for (const auto& log : find_logs(data_dir())) {
    auto yaml = reference_for(log, ".yaml");
    if (!yaml) continue;
    INFO(log);
    std::string err;
    auto ref = parse_llvm_yaml(read_text(*yaml), &err);
    REQUIRE_MESSAGE(ref, err);
    CollectEvents got;
    XrayReport rep;
    auto s = read_xray_events(log, got, &rep);
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().to_string()));
    CHECK(rep.header.version == ref->version);
    CHECK(uint64_t(rep.header.type) == ref->type);
    CHECK(rep.header.cycle_frequency == ref->cycle_frequency);
    CHECK(rep.header.constant_tsc == ref->constant_tsc);
    CHECK(rep.header.nonstop_tsc == ref->nonstop_tsc);
    std::vector<RefRecord> want, mine;
    for (const auto& r : ref->records) want.push_back(normalise(r));
    for (const auto& e : got.events) mine.push_back(to_ref(e));
    CHECK(mine.size() == want.size());
    CHECK(first_difference(by_thread_sorted(want), by_thread_sorted(mine)) == "");
    // EIDs are file order.
    for (size_t i = 0; i < got.events.size(); ++i) REQUIRE(got.events[i].eid == i);
    ++compared;
  }
  CHECK(compared >= 20);
}

// llvm-xray parses the rest of a version 1 buffer after its EndOfBuffer as
// records (and ignores them); this reader skips it by the header's buffer
// size. Drop those lines from the reference.
std::string without_v1_padding(const std::string& dump) {
  std::istringstream in(dump);
  std::string line, out;
  bool after_eob = false;
  while (std::getline(in, line)) {
    if (line == "<End of Buffer>") {
      after_eob = true;
      out += line + "\n";
      continue;
    }
    if (line.rfind("<Thread ID", 0) == 0) after_eob = false;
    if (!after_eob) out += line + "\n";
  }
  return out;
}

TEST_CASE("raw FDR records equal llvm-xray fdr-dump") {
  int compared = 0, failed_in_llvm = 0;
  for (const auto& log : find_logs(data_dir())) {
    auto dump = reference_for(log, ".fdr-dump.txt");
    if (!dump) continue;
    INFO(log);
    XrayReport rep;
    ttd::Status s;
    std::string mine = dump_of(log, rep, s);
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().to_string()));
    std::string text = read_text(*dump);
    bool llvm_failed = text.find("llvm-xray: ") != std::string::npos;
    std::string want = strip_llvm_errors(text);
    if (rep.header.version == 1) want = without_v1_padding(want);
    std::string got = without_skipped_lines(mine);
    if (!llvm_failed) {
      CHECK(got == want);
    } else {
      // llvm-xray stops at the first cut record; everything it printed is
      // the start of this dump, and the next line is this reader's report
      // of the skipped region.
      ++failed_in_llvm;
      REQUIRE(got.size() >= want.size());
      CHECK(got.substr(0, want.size()) == want);
      size_t lines = size_t(std::count(want.begin(), want.end(), '\n'));
      std::istringstream in(mine);
      std::string line;
      size_t records = 0;
      while (records < lines && std::getline(in, line))
        if (line.rfind("<Skipped", 0) != 0) ++records;
      REQUIRE(std::getline(in, line));
      CHECK(line.rfind("<Skipped: ", 0) == 0);
    }
    // llvm-xray's verifier complains exactly where this reader recovers.
    auto verify = reference_for(log, ".verify-stderr.txt");
    bool verify_failed = verify && !read_text(*verify).empty();
    bool certain = false;
    for (const auto& r : rep.recoveries) certain |= r.certain;
    CHECK(certain == verify_failed);
    ++compared;
  }
  CHECK(compared >= 18);
  CHECK(failed_in_llvm >= 3);
}
