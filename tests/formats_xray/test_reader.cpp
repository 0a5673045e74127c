// The TraceReader: sniffing, TraceInfo, the step stream and its attributes.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>

#include "fdr_writer.h"
#include "formats/xray/xray_format.h"
#include "formats/xray/xray_pipeline.h"
#include "formats/xray/xray_reader.h"
#include "reference.h"
#include "test_support.h"

using namespace ttd;
using namespace ttd::fmt;
using namespace ttd::fmt::xray;
using namespace xray_test;

namespace {

std::vector<uint8_t> head_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> h(4096);
  f.read(reinterpret_cast<char*>(h.data()), std::streamsize(h.size()));
  h.resize(size_t(f.gcount()));
  return h;
}

RecordingSink read_all(const std::string& path, const std::string& binary = "", Status* status = nullptr) {
  ReaderOptions o;
  o.instr_map_binary = binary;
  auto r = xray_format().open(path, o);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  RecordingSink sink;
  Status s = (*r)->read(sink, {});
  if (status)
    *status = s;
  else
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().to_string()));
  return sink;
}

}  // namespace

TEST_CASE("sniff accepts every XRay log and nothing else here") {
  FormatEntry e = xray_format();
  CHECK(e.name == "xray");
  for (const auto& log : find_logs(data_dir())) {
    INFO(log);
    CHECK(e.sniff(log, head_of(log)));
  }
  for (const char* other :
       {"bin/fdr_threads", "expected/fdr-v5-single-thread.yaml", "PROVENANCE.md", "src/fdr_demo.cpp"}) {
    INFO(other);
    CHECK_FALSE(e.sniff(data(other), head_of(data(other))));
  }
  CHECK_FALSE(e.sniff(data_dir(), {}));

  // A truncated basic log is still recognised, so that reading it can say
  // where it ends.
  auto b = xray_test::basic_header(3);
  xray_test::basic_function(b, xray_test::Action::Enter, 1, 10, 1, 1);
  xray_test::basic_function(b, xray_test::Action::Exit, 1, 20, 1, 1);
  b.resize(b.size() - 7);
  auto path = temp_path("cut-basic.xray");
  REQUIRE(xray_test::write_file(path, b));
  CHECK(e.sniff(path, b));
}

TEST_CASE("steps, EIDs and attributes of a multi-threaded log with its instrumentation map") {
  auto log = data("fdr-v5-3threads-arg1-O0.xray");
  auto sink = read_all(log, data("bin/fdr_threads"));
  CHECK(sink.begins == 1);
  CHECK(sink.ends == 1);
  CHECK(sink.effects == 0);
  CHECK(sink.info.format == "xray-fdr");
  CHECK(sink.info.arch == ArchId::X86_64);
  CHECK(sink.info.exec_path == data("bin/fdr_threads"));
  CHECK_FALSE(sink.info.caps.registers);
  CHECK_FALSE(sink.info.caps.memory_values);
  CHECK_FALSE(sink.info.caps.memory_accesses);
  CHECK(sink.info.caps.note.find("call stacks only") != std::string::npos);
  CHECK(sink.property("xray.version") == "5");
  CHECK(sink.property("xray.threads") == "4");
  CHECK(sink.property("xray.instr_map.functions") == "5");

  CollectEvents events;
  REQUIRE(read_xray_events(log, events).ok());
  REQUIRE(sink.steps.size() == events.events.size());
  REQUIRE(sink.steps.size() == 1522);
  const uint64_t addr[] = {0, 0x21D70, 0x21DA0, 0x21E00, 0x21E40, 0x21EC0};
  const char* names[] = {"", "leaf(int)", "mid(int)", "witharg(int)", "worker(void*)", "main"};
  for (size_t i = 0; i < sink.steps.size(); ++i) {
    const auto& s = sink.steps[i];
    const auto& e = events.events[i];
    REQUIRE(e.eid == i);
    CHECK(s.info.tid == e.tid);
    CHECK(s.info.pid == 5596);
    CHECK(s.info.size == 0);
    CHECK(s.u64("function") == e.func_id);
    CHECK(s.info.pc == addr[e.func_id]);
    CHECK(s.u64("tsc") == e.tsc);
    CHECK(s.u64("cpu") == e.cpu);
    CHECK(!s.attr("thread"));  // the step's own thread says it
    CHECK(s.u64("pid") == 5596);
    const auto* sym = s.attr("symbol");
    REQUIRE(sym);
    CHECK(std::get<std::string>(*sym) == names[e.func_id]);
    if (e.kind == EventKind::EnterArgs) {
      CHECK(s.info.kind == StepKind::FunctionEnter);
      REQUIRE(s.attr("args"));
      CHECK(std::get<std::vector<uint64_t>>(*s.attr("args")) == e.args);
    } else {
      CHECK(s.attr("args") == nullptr);
    }
    if (e.kind == EventKind::Exit) CHECK(s.info.kind == StepKind::FunctionExit);
  }
}

TEST_CASE("without a map the pc is the function id, events sit in the innermost call") {
  auto sink = read_all(data("fdr-v5-custom-event.xray"));
  CHECK(sink.property("xray.pc").find("function id") != std::string::npos);
  REQUIRE(sink.steps.size() == 7);
  const auto& ev = sink.steps[3];
  CHECK(ev.info.kind == StepKind::CustomEvent);
  CHECK(ev.info.pc == 2);
  CHECK(ev.u64("function") == 2);
  CHECK(std::get<std::string>(*ev.attr("event")) == "hello-custom-event");
  CHECK(ev.attr("event_type") == nullptr);
  CHECK(sink.steps[0].info.pc == 1);
  CHECK(sink.steps[0].info.kind == StepKind::FunctionEnter);

  auto typed = read_all(data("fdr-v5-typed-event-TRUNCATED-by-runtime-bug.xray"));
  REQUIRE(typed.steps.size() == 5);
  CHECK(typed.steps[3].info.kind == StepKind::TypedEvent);
  CHECK(typed.steps[3].u64("event_type") == 42);
  CHECK(std::get<std::string>(*typed.steps[3].attr("event")) == "typed!");
  CHECK(typed.property("xray.suspected@166").find("probably missing") != std::string::npos);
}

TEST_CASE("tail exits, binary payloads, version 1 without process ids") {
  auto sink = read_all(data("crafted/fdr-v5-two-threads.xray"));
  bool tail = false, typed = false;
  for (const auto& s : sink.steps) {
    tail |= s.info.kind == StepKind::FunctionTailExit;
    if (s.info.kind == StepKind::TypedEvent) {
      typed = true;
      CHECK(std::get<std::string>(*s.attr("event")) == "hex:01027479706564ff");
      CHECK(s.u64("event_type") == 513);
    }
  }
  CHECK(tail);
  CHECK(typed);
  auto v1 = read_all(data("llvm-writer/llvmwriter-fdr-v1.xray"));
  for (const auto& s : v1.steps) CHECK(s.info.pid == 0);
  CHECK(v1.property("xray.version") == "1");
}

TEST_CASE("basic-mode logs") {
  auto sink = read_all(data("basic/basic-v3-arg1.xray"));
  CHECK(sink.info.format == "xray-basic");
  CHECK(sink.property("xray.mode") == "basic");
  CHECK(sink.property("xray.records") == std::to_string((4576 - 32) / 32));
  REQUIRE(sink.steps.size() == 122);
  CHECK(sink.steps[1].info.kind == StepKind::FunctionEnter);
  CHECK(std::get<std::vector<uint64_t>>(*sink.steps[1].attr("args")) == std::vector<uint64_t>{0});
}

TEST_CASE("recovered regions appear in TraceInfo and the read succeeds") {
  auto sink = read_all(data("fdr-v5-clang14-threads-custom-typed-TRUNCATED.xray"));
  CHECK(sink.ends == 1);
  CHECK(sink.property("xray.recovered.cut_records") == "1");
  CHECK(sink.property("xray.recovered.suspect_buffers").empty());
  CHECK(sink.property("xray.recovered.skipped_bytes") == "14");
  CHECK(sink.property("xray.skipped@9962").find("skipped bytes 9962..9976") != std::string::npos);
  CHECK(sink.steps.back().info.kind == StepKind::CustomEvent);
}

TEST_CASE("every prefix of an unpadded version 1 log is whole, refused, or noted as possibly cut") {
  // LLVM's writer (header buffer size 0) ends version 1 buffers only with
  // EndOfBuffer. A copy cut at a record boundary of the last buffer parses,
  // so the reader cannot refuse it, but it must not pass it off as whole.
  FdrWriter w(1);
  const uint32_t per_buffer[] = {3, 2};
  std::vector<size_t> whole_at = {32};  // prefix lengths that are complete logs
  for (int b = 0; b < 2; ++b) {
    w.begin_buffer(b + 1, 0, 0, 100);
    for (uint32_t i = 0; i < per_buffer[b]; ++i) w.function(Action::Enter, i + 1, 1);
    w.end_buffer();
    whole_at.push_back(w.size());
  }
  const std::vector<uint8_t> full = w.bytes();
  size_t noted = 0;
  for (size_t n = 32; n <= full.size(); ++n) {
    CAPTURE(n);
    auto path = temp_path("v1-prefix.xray");
    REQUIRE(write_file(path, std::vector<uint8_t>(full.begin(), full.begin() + n)));
    Status s;
    auto sink = read_all(path, "", &s);
    const bool whole = std::find(whole_at.begin(), whole_at.end(), n) != whole_at.end();
    if (whole) {
      REQUIRE_MESSAGE(s.ok(), s.error().to_string());
      CHECK(sink.property("xray.truncation").empty());
    } else if (s.ok()) {
      ++noted;
      CHECK_MESSAGE(sink.property("xray.truncation").find("has no EndOfBuffer before the file ends at offset " +
                                                          std::to_string(n)) != std::string::npos,
                    sink.property("xray.truncation"));
    } else {
      CHECK(s.error().offset.has_value());
    }
  }
  CHECK(noted > 0);
}

TEST_CASE("errors and cancelling") {
  auto r = xray_format().open(data("nonexistent.xray"), {});
  CHECK_FALSE(r.ok());
  ReaderOptions bad;
  bad.instr_map_binary = data("expected/fdr-v5-single-thread.yaml");
  auto m = xray_format().open(data("fdr-v5-single-thread.xray"), bad);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message.find("not an ELF") != std::string::npos);

  // A read that fails midway: steps before the error, no end().
  xray_test::FdrWriter w(5);
  w.begin_buffer(1, 1, 0, 100);
  w.function(Action::Enter, 1, 0);
  w.function(Action::Exit, 1, 5);
  w.end_buffer();
  w.raw({0x42});
  auto path = temp_path("bad.xray");
  REQUIRE(w.save(path));
  Status s;
  auto sink = read_all(path, "", &s);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().offset == w.size() - 1);
  CHECK(sink.steps.size() == 2);
  CHECK(sink.ends == 0);
  CHECK(sink.property("xray.error").find("trailing") != std::string::npos);

  // Progress reaches the caller, and false cancels.
  auto big = temp_path("big.xray");
  xray_test::FdrWriter b(5);
  for (int buf = 0; buf < 200; ++buf) {
    b.begin_buffer(1 + buf % 3, 1, 0, 100);
    for (int i = 0; i < 4000; ++i) b.function(i % 2 ? Action::Exit : Action::Enter, 1, 3);
    b.end_buffer();
  }
  REQUIRE(b.save(big));
  auto reader = xray_format().open(big, {});
  REQUIRE(reader.ok());
  RecordingSink cs;
  int calls = 0;
  Status c = (*reader)->read(cs, [&](uint64_t done, uint64_t total) {
    ++calls;
    CHECK(done <= total);
    return false;
  });
  CHECK(calls == 1);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message.find("cancelled") != std::string::npos);
}
