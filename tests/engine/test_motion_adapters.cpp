// The motion suite through the two translators (issue 18): gdb's view
// (tools/ttd/engine_target: s / bs / c / bc with watchpoints, as the RSP
// stub asks) and DAP's view (dap/model: stepIn / next / stepOut both ways,
// continue to a data breakpoint) must stop at the EIDs the engine suite's
// oracles give, on x86-64, aarch64 and ppc32.
#include <doctest/doctest.h>

#include <span>
#include <type_traits>
#include <vector>

#include "dap/model/engine_debuggee.h"
#include "motion_suite.h"
#include "tools/ttd/engine_target.h"

using namespace ttd;
using test::kArches;
using test::Suite;

// One motion vocabulary (state/motion_vocabulary.h): the engine, the gdb
// stub and the DAP front end ask and answer in the same types, so the
// adapters pass them through instead of translating each one.
static_assert(std::is_same_v<decltype(gdb::ResumeRequest::direction), Direction>);
static_assert(std::is_same_v<decltype(dap::ResumeArgs::direction), Direction>);
static_assert(std::is_same_v<decltype(gdb::ResumeRequest::watchpoints), std::span<const Watchpoint>>);
static_assert(std::is_same_v<decltype(dap::ResumeArgs::watchpoints), std::span<const Watchpoint>>);
static_assert(std::is_same_v<decltype(StopConditions::watchpoints), std::vector<Watchpoint>>);
static_assert(std::is_same_v<decltype(gdb::StopReason::watch_kind), WatchKind>);
static_assert(std::is_same_v<decltype(dap::StopInfo::cause), StopKind>);

namespace {

dap::Motion dap_motion(StepMotion m) {
  return m == StepMotion::In ? dap::Motion::StepIn : m == StepMotion::Over ? dap::Motion::StepOver : dap::Motion::StepOut;
}

}  // namespace

TEST_CASE("motion suite through gdb's view: stepi and reverse-stepi, per thread") {
  for (ArchId arch : kArches)
    for (uint32_t threads : {1u, 2u}) {
      CAPTURE(arch_desc(arch).name);
      CAPTURE(threads);
      Suite s(arch, threads);
      cli::EngineTarget target(s.trace);
      for (uint64_t e = 0; e <= s.count(); e += 3)
        for (const auto& th : s.trace->threads())
          for (bool fwd : {true, false}) {
            CAPTURE(e);
            CAPTURE(th.tid);
            CAPTURE(fwd);
            REQUIRE(target.monitor("seek " + std::to_string(e)).ok);
            REQUIRE(target.resume(gdb::ResumeRequest{}, {}).ok());  // the seek happens at the next resume
            REQUIRE(target.cursor().eid() == e);
            gdb::ResumeRequest r;
            r.action = gdb::ResumeAction::Step;
            r.direction = fwd ? Direction::Forward : Direction::Backward;
            r.tid = th.tid;
            auto stop = target.resume(r, {});
            REQUIRE(stop.ok());
            auto want = s.oracle(e, th.tid, StepMotion::In, fwd ? Direction::Forward : Direction::Backward);
            CHECK(target.cursor().eid() == want.value_or(fwd ? s.count() : 0));
            CHECK(stop->kind == (want ? gdb::StopReplyKind::StepDone : fwd ? gdb::StopReplyKind::HistoryEnd : gdb::StopReplyKind::HistoryBegin));
          }
    }
}

TEST_CASE("motion suite through gdb's view: continue and reverse-continue to a watchpoint") {
  for (ArchId arch : kArches) {
    CAPTURE(arch_desc(arch).name);
    Suite s(arch, 1);  // gdb steps the reporting thread over the access: one thread keeps the oracle simple
    cli::EngineTarget target(s.trace);
    Watchpoint w{test::kMotionData + 13, 4, WatchKind::Access};
    Watchpoint ew{w.addr, w.len, WatchKind::Access};
    std::vector<uint64_t> acc;
    for (uint64_t k = 0; k < s.count(); ++k)
      if (s.hits(k, ew)) acc.push_back(k);
    REQUIRE(acc.size() > 5);
    bool before = arch != ArchId::X86_64;
    for (bool fwd : {true, false}) {
      CAPTURE(fwd);
      gdb::ResumeRequest r;
      r.direction = fwd ? Direction::Forward : Direction::Backward;
      r.watchpoints = std::span<const Watchpoint>(&w, 1);
      REQUIRE(target.monitor(fwd ? "seek start" : "seek end").ok);
      REQUIRE(target.resume(gdb::ResumeRequest{}, {}).ok());
      // gdb on before-access arches steps over the reported access itself
      // (watchpoints removed) before it continues; do as it does.
      for (size_t n = 0; n < acc.size(); ++n) {
        size_t i = fwd ? n : acc.size() - 1 - n;
        uint64_t k = acc[i];
        // Where the trap comes before the access, an access right at the
        // start is reported at once (report_access_at_start).
        uint64_t want = s.stop_of(k, fwd ? Direction::Forward : Direction::Backward);
        CAPTURE(k);
        auto stop = target.resume(r, {});
        REQUIRE(stop.ok());
        CHECK(stop->kind == gdb::StopReplyKind::Watchpoint);
        CHECK(stop->watch_addr == w.addr);
        CHECK(stop->tid == s.prog.steps[k].tid);
        CHECK(target.cursor().eid() == want);
        if (before) {
          gdb::ResumeRequest step;
          step.action = gdb::ResumeAction::Step;
          step.direction = r.direction;
          step.tid = s.prog.steps[k].tid;
          REQUIRE(target.resume(step, {}).ok());
        }
      }
    }
  }
}

TEST_CASE("motion suite through DAP's view: stepIn, next and stepOut both ways, and a data breakpoint") {
  for (ArchId arch : kArches) {
    CAPTURE(arch_desc(arch).name);
    Suite s(arch, 2);
    dap::EngineDebuggee d(s.trace, nullptr, dap::LaunchConfig{});
    for (uint64_t e = 0; e <= s.count(); e += 7)
      for (const auto& th : s.trace->threads())
        for (StepMotion m : {StepMotion::In, StepMotion::Over, StepMotion::Out})
          for (bool fwd : {true, false}) {
            CAPTURE(e);
            CAPTURE(th.tid);
            CAPTURE(int(m));
            CAPTURE(fwd);
            REQUIRE(d.seek(e).ok());
            // DAP steps the current thread when the one named has not started yet.
            uint64_t t = d.thread_state(th.tid) ? th.tid : d.current_thread();
            dap::ResumeArgs a;
            a.motion = dap_motion(m);
            a.direction = fwd ? Direction::Forward : Direction::Backward;
            a.granularity = dap::Granularity::Instruction;
            a.tid = th.tid;
            auto stop = d.resume(a, {});
            REQUIRE(stop.ok());
            auto want = s.oracle(e, t, m, fwd ? Direction::Forward : Direction::Backward);
            CHECK(stop->eid == want.value_or(fwd ? s.count() : 0));
            CHECK(d.position() == stop->eid);
          }
    // A data breakpoint (write, 2 bytes): continue visits the writes in order.
    Watchpoint w{test::kMotionData + 40, 2, WatchKind::Write};
    Watchpoint ew{w.addr, w.len, WatchKind::Write};
    REQUIRE(d.seek(0).ok());
    for (uint64_t k = 0; k < s.count(); ++k) {
      if (!s.hits(k, ew) || s.stop_of(k, Direction::Forward) == 0) continue;
      dap::ResumeArgs a;
      a.watchpoints = std::span<const Watchpoint>(&w, 1);
      auto stop = d.resume(a, {});
      REQUIRE(stop.ok());
      CHECK(stop->cause == StopKind::Watchpoint);
      CHECK(stop->access_eid == k);
      CHECK(stop->eid == s.stop_of(k, Direction::Forward));
      CHECK(stop->detail.find("(write)") != std::string::npos);
    }
  }
}
