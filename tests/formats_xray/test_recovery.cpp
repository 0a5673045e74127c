// The compiler-rt typed-event BufferExtents bug: everything intact is read,
// and what was skipped or lost is reported with its offsets.
#include <doctest/doctest.h>

#include "fdr_writer.h"
#include "formats/xray/fdr_survey.h"
#include "formats/xray/xray_pipeline.h"
#include "reference.h"
#include "test_support.h"

using namespace ttd::fmt::xray;
using namespace xray_test;

namespace {

struct Read {
  ttd::Status status;
  CollectEvents events;
  XrayReport report;
};

Read read_file(const std::string& path) {
  Read r;
  r.status = read_xray_events(path, r.events, &r.report);
  return r;
}

// One thread: entry, typed event, then `tail` (written by the caller), in
// a buffer closed with or without the bug; a second buffer follows.
std::string buggy_log(const std::function<void(FdrWriter&)>& tail, bool bug, uint64_t header_buffer_size = 16384) {
  FdrWriter w(5, header_buffer_size, 1000000000ull);
  w.begin_buffer(10, 9, 0, 1000);
  w.function(Action::Enter, 1, 0);
  w.typed_event(5, 3, "abc");
  tail(w);
  w.end_buffer(bug);
  w.begin_buffer(11, 9, 1, 5000);
  w.function(Action::Enter, 2, 0);
  w.function(Action::Exit, 2, 7);
  w.end_buffer();
  auto path = temp_path(bug ? "bug.xray" : "nobug.xray");
  REQUIRE(w.save(path));
  return path;
}

std::vector<RefRecord> refs(const std::vector<XrayEvent>& ev) {
  std::vector<RefRecord> out;
  for (const auto& e : ev) out.push_back(to_ref(e));
  return out;
}

// The events of the buggy log are those of the intact log, minus the ones
// whose records fell into the lost tail of the first buffer.
// `args_cut`: the last intact entry lost its arguments with the cut record.
void check_intact(const Read& bug, const Read& good, size_t lost_events, bool args_cut) {
  auto b = refs(bug.events.events), g = refs(good.events.events);
  REQUIRE(b.size() + lost_events == g.size());
  size_t first_buffer = 0;
  for (const auto& r : g) first_buffer += r.thread == 10;
  size_t intact = first_buffer - lost_events;
  for (size_t i = 0; i < intact; ++i) {
    if (args_cut && i + 1 == intact) {
      CHECK(b[i].kind == "function-enter-arg");
      CHECK(b[i].args.empty());
      CHECK(b[i].tsc == g[i].tsc);
      continue;
    }
    CHECK(b[i] == g[i]);
  }
  for (size_t i = first_buffer; i < g.size(); ++i) CHECK(b[i - lost_events] == g[i]);
}

}  // namespace

TEST_CASE("a record cut by the bug is skipped and reported, the next buffer is read") {
  struct Case {
    const char* name;
    std::function<void(FdrWriter&)> tail;
    uint64_t skipped;  // bytes of the cut record still in the file
    size_t lost_events;
    bool args_cut = false;
  };
  std::vector<Case> cases = {
      // Offsets below are relative to the buffer's data: 64 bytes of
      // buffer preamble, the entry (8) and the typed event (19) end at 91.
      {"tail lost on a record boundary",
       [](FdrWriter& w) {
         w.function(Action::Exit, 1, 3);
         w.function(Action::Enter, 4, 1);
         w.function(Action::Enter, 1, 1);
       },
       0, 2},
      {"call argument cut",  // 91 entry, 99 argument, 115 exit; cut at 107
       [](FdrWriter& w) {
         w.function(Action::EnterArgs, 3, 2);
         w.argument(77);
         w.function(Action::Exit, 3, 1);
       },
       8, 1, true},
      {"custom event payload cut",  // 91 custom (26), 117 exit; cut at 109
       [](FdrWriter& w) {
         w.custom_event(4, "0123456789");
         w.function(Action::Exit, 1, 1);
       },
       18, 2},
      {"typed event cut by its own and a later one",  // two typed events: cut at 117 - 32 = 85, inside the first
       [](FdrWriter& w) {
         w.function(Action::Exit, 1, 3);
         w.typed_event(1, 4, "xy");
       },
       13, 3},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto bug = read_file(buggy_log(c.tail, true));
    auto good = read_file(buggy_log(c.tail, false));
    REQUIRE_MESSAGE(bug.status.ok(), (bug.status.ok() ? "" : bug.status.error().to_string()));
    REQUIRE(good.status.ok());
    if (c.skipped == 0) {
      // The lost tail ended on a record boundary: only a suspicion.
      REQUIRE(bug.report.recoveries.size() == 1);
      CHECK_FALSE(bug.report.recoveries[0].certain);
    } else {
      REQUIRE(bug.report.recoveries.size() == 1);
      const Recovery& r = bug.report.recoveries[0];
      CHECK(r.certain);
      CHECK(r.buffer_offset == 32);
      CHECK(r.skipped == c.skipped);
      CHECK(r.thread == 10);
      CHECK(r.lost >= 16);
      CHECK(describe(r).find(std::to_string(r.offset)) != std::string::npos);
      CHECK(describe(r).find(std::to_string(r.offset + r.skipped)) != std::string::npos);
      CHECK(bug.events.gaps.size() == 1);
      CHECK(bug.events.gaps[0] == std::make_pair(uint64_t(10), r.offset));
    }
  }
  // The intact events are exactly those of the intact log, less the lost.
  for (const auto& c : cases) {
    INFO(c.name);
    auto bug = read_file(buggy_log(c.tail, true));
    auto good = read_file(buggy_log(c.tail, false));
    check_intact(bug, good, c.lost_events, c.args_cut);
  }
}

TEST_CASE("each typed event of a buffer costs it 16 bytes") {
  auto tail = [](FdrWriter& w) {
    w.typed_event(1, 4, "second");
    w.function(Action::Exit, 1, 2);
    w.function(Action::Enter, 5, 2);
    w.function(Action::Exit, 5, 2);
    w.function(Action::Enter, 6, 2);
    w.custom_event(1, "z");
  };
  auto bug = read_file(buggy_log(tail, true));
  REQUIRE(bug.status.ok());
  REQUIRE(bug.report.recoveries.size() == 1);
  const Recovery& r = bug.report.recoveries[0];
  CHECK(r.certain);
  CHECK(r.lost == 32);
  // Data ends at 162 (…, 129 exit, 137 entry, 145 custom of 17); two typed
  // events move the end to 130, one byte into that exit.
  CHECK(r.offset == 48 + 129);
  CHECK(r.skipped == 1);
}

TEST_CASE("an intact log with typed events reports only a suspicion, worded by writer") {
  auto tail = [](FdrWriter& w) { w.function(Action::Exit, 1, 3); };
  auto runtime = read_file(buggy_log(tail, false, 16384));
  REQUIRE(runtime.report.recoveries.size() == 1);
  CHECK_FALSE(runtime.report.recoveries[0].certain);
  CHECK(describe(runtime.report.recoveries[0]).find("probably") != std::string::npos);
  auto llvm_writer = read_file(buggy_log(tail, false, 0));
  REQUIRE(llvm_writer.report.recoveries.size() == 1);
  CHECK(describe(llvm_writer.report.recoveries[0]).find("possibly") != std::string::npos);
  CHECK(llvm_writer.events.events.size() == runtime.events.events.size());
}

TEST_CASE("the real clang-14 log: skipped region and properties") {
  auto path = data("fdr-v5-clang14-threads-custom-typed-TRUNCATED.xray");
  auto rep = survey_xray(path);
  REQUIRE(rep.error.empty());
  REQUIRE(rep.recoveries.size() == 1);
  const Recovery& r = rep.recoveries[0];
  CHECK(r.certain);
  CHECK(r.offset == 9962);  // llvm-xray: "Invalid offset for a typed event record (9963)"
  CHECK(r.skipped == 14);   // up to the end of the file
  CHECK(r.buffer_offset == 9744);
  CHECK(r.thread == 4823);
  auto props = report_properties(rep);
  bool found = false;
  for (const auto& [k, v] : props)
    if (k == "xray.skipped@9962") {
      found = true;
      CHECK(v.find("9962..9976") != std::string::npos);
    }
  CHECK(found);
}
