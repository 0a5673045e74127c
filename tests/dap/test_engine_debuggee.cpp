// EngineDebuggee on synthetic traces run by the real engine:
// - what a data breakpoint's stop says about the access: a write that
//   covers only part of the watched range, and one step whose two writes
//   each cover a piece of it, are writes (old and new value of the whole
//   range), not reads;
// - disassemble's work is bounded by what is asked (far offsets refused);
// - an interrupt stops continue, reverse continue and steps.
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "dap/model/engine_debuggee.h"
#include "engine/trace.h"
#include "synthetic_trace.h"
#include "temp_synthetic_trace.h"

using namespace ttd;
using namespace ttd::dap;

namespace {

using E = test::SynthEffect;

// pid 1, thread 7. Memory 0x10100..0x10103 starts as 11 22 33 44.
//   EID 1: an 8-byte memset at 0x100fb (covers 0x10100..0x10102)
//   EID 3: 2 bytes aa bb at 0x100ff and 2 bytes cc dd at 0x10103 (one step)
//   EID 4: a 4-byte read of 0x10100
struct WatchTrace {
  std::string path;
  std::shared_ptr<Trace> trace;
  WatchTrace() {
    path = (std::filesystem::temp_directory_path() / ("ttd-dap-watch-" + std::to_string(::getpid()))).string();
    std::ofstream(path) << "synthetic watch trace";
    auto synth = std::make_shared<test::SynthTrace>();
    synth->initial.push_back({E::Map, 1, 0, 0x10000, std::vector<uint8_t>(0x1000, 0)});
    synth->initial.push_back({E::Write, 1, 0, 0x10100, {0x11, 0x22, 0x33, 0x44}});
    for (uint64_t i = 0; i < 6; ++i) {
      test::SynthStep s;
      s.info = fmt::StepInfo{7, 1, 0x100 + 4 * i, 4, fmt::StepKind::Instruction};
      if (i == 1) s.effects.push_back({E::Write, 7, 0, 0x100fb, std::vector<uint8_t>(8, 0)});
      if (i == 3) {
        s.effects.push_back({E::Write, 7, 0, 0x100ff, {0xaa, 0xbb}});
        s.effects.push_back({E::Write, 7, 0, 0x10103, {0xcc, 0xdd}});
      }
      if (i == 4) s.effects.push_back({E::Read, 7, 0, 0x10100, std::vector<uint8_t>(4)});
      synth->steps.push_back(s);
    }
    OpenOptions o;
    o.keyframe_interval = 16;
    o.reader_factory = [synth]() -> Result<std::unique_ptr<fmt::TraceReader>> {
      return std::unique_ptr<fmt::TraceReader>(new test::SynthReader(synth));
    };
    auto t = Trace::open(path, o);
    REQUIRE(t.ok());
    trace = *t;
  }
  ~WatchTrace() {
    std::remove(path.c_str());
    std::remove((path + ".ttdidx").c_str());
  }
};

StopInfo run(EngineDebuggee& d, const Watchpoint& w, Direction dir = Direction::Forward) {
  ResumeArgs a;
  a.motion = Motion::Continue;
  a.direction = dir;
  a.watchpoints = std::span<const Watchpoint>(&w, 1);
  auto r = d.resume(a, {});
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("watch detail: a write covering part of the watched range is a write") {
  WatchTrace t;
  EngineDebuggee d(t.trace, nullptr, LaunchConfig{});
  Watchpoint w{0x10100, 4, WatchKind::Write};
  StopInfo s = run(d, w);
  REQUIRE(s.cause == StopKind::Watchpoint);
  CHECK(s.access_eid == 1);
  INFO(s.detail);
  CHECK(s.detail == "old value 1144201745 (0x44332211), new value 1140850688 (0x44000000) (write)");
}

TEST_CASE("watch detail: a range straddling two writes of one step gets both") {
  WatchTrace t;
  EngineDebuggee d(t.trace, nullptr, LaunchConfig{});
  REQUIRE(d.seek(2).ok());
  Watchpoint w{0x10100, 4, WatchKind::Write};
  StopInfo s = run(d, w);
  REQUIRE(s.cause == StopKind::Watchpoint);
  CHECK(s.access_eid == 3);
  INFO(s.detail);
  CHECK(s.detail == "old value 1140850688 (0x44000000), new value -872415045 (0xcc0000bb) (write)");
  // Backwards from the end: the same step, the same description.
  REQUIRE(d.seek(d.end_position()).ok());
  s = run(d, w, Direction::Backward);
  REQUIRE(s.cause == StopKind::Watchpoint);
  CHECK(s.access_eid == 3);
  CHECK(s.detail.find("new value -872415045 (0xcc0000bb) (write)") != std::string::npos);
}

TEST_CASE("watch detail: a read stays a read") {
  WatchTrace t;
  EngineDebuggee d(t.trace, nullptr, LaunchConfig{});
  REQUIRE(d.seek(4).ok());
  Watchpoint w{0x10101, 2, WatchKind::Access};
  StopInfo s = run(d, w);
  REQUIRE(s.cause == StopKind::Watchpoint);
  CHECK(s.access_eid == 4);
  CHECK(s.detail == "value 0 (0x0) read");
}

TEST_CASE("disassemble: far offsets are refused, near ones cost what is asked") {
  WatchTrace t;
  EngineDebuggee d(t.trace, nullptr, LaunchConfig{});
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  auto far = d.disassemble(7, 0x100, -1000000, 10);
  REQUIRE_FALSE(far.ok());
  CHECK(far.error().to_string().find("instructionOffset -1000000") != std::string::npos);
  CHECK_FALSE(d.disassemble(7, 0x100, INT64_MIN, 10).ok());
  CHECK_FALSE(d.disassemble(7, 0x100, INT64_MAX, 10).ok());
  CHECK_FALSE(d.disassemble(7, 0x100, 0, kMaxDisassembleCount + 1).ok());
  // At the bound: the answer has exactly count lines, quickly (the code
  // before 0x100 is unknown: placeholders).
  auto back = d.disassemble(7, 0x100, -kMaxDisassembleOffset, 10);
  REQUIRE(back.ok());
  CHECK(back->size() == 10);
  auto fwd = d.disassemble(7, 0x100, kMaxDisassembleOffset, 10);
  REQUIRE(fwd.ok());
  CHECK(fwd->size() == 10);
  auto wide = d.disassemble(7, 0x100, -kMaxDisassembleOffset, kMaxDisassembleCount);
  REQUIRE(wide.ok());
  CHECK(wide->size() == kMaxDisassembleCount);
  CHECK(std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0).count() < 5000);
}

TEST_CASE("interrupt: continue, reverse continue and steps stop on it") {
  test::TempSynthTrace t(test::make_synthetic(20000, 2, 7));
  auto tr = Trace::open(t.path, t.options(256));
  REQUIRE(tr.ok());
  EngineDebuggee d(*tr, nullptr, LaunchConfig{});
  REQUIRE(d.seek(10000).ok());
  int polls = 0;
  InterruptCheck raised = [&] { return ++polls > 0; };
  for (Motion m : {Motion::Continue, Motion::StepOver}) {
    for (Direction dir : {Direction::Forward, Direction::Backward}) {
      ResumeArgs a;
      a.motion = m;
      a.direction = dir;
      a.granularity = Granularity::Instruction;
      uint64_t bp = 0xdead0000;  // never hit: only the interrupt can stop a continue early
      a.breakpoints = std::span<const uint64_t>(&bp, 1);
      polls = 0;
      auto r = d.resume(a, raised);
      REQUIRE(r.ok());
      if (m != Motion::Continue) continue;  // a one-instruction step may end before it looks
      CHECK(polls > 0);
      CHECK(r->cause == StopKind::Interrupted);
    }
  }
}
