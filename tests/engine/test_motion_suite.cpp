// The motion suite (issue 18): the Timeline's step in / over / out in both
// directions and its watchpoints, on x86-64, aarch64 and ppc32, against
// brute-force oracles built from the generated step stream (frame depths
// and memory the generator tracked, not the engine's answers).
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>

#include "motion_suite.h"

using namespace ttd;
using test::kArches;
using test::Suite;

namespace {

const char* motion_name(StepMotion m) { return m == StepMotion::In ? "in" : m == StepMotion::Over ? "over" : "out"; }

void check_steps(Suite& s, uint64_t stride, const std::optional<Watchpoint>& watch) {
  Timeline tl(s.trace);
  std::vector<uint64_t> tids;
  for (const auto& t : s.trace->threads()) tids.push_back(t.tid);
  for (uint64_t e = 0; e <= s.count(); e += stride)
    for (uint64_t t : tids)
      for (StepMotion m : {StepMotion::In, StepMotion::Over, StepMotion::Out})
        for (Direction dir : {Direction::Forward, Direction::Backward}) {
          CAPTURE(e);
          CAPTURE(t);
          const std::string motion = motion_name(m);
          CAPTURE(motion);
          CAPTURE(dir == Direction::Forward);
          REQUIRE(tl.seek(e).ok());
          StepByRequest req;
          req.motion = m;
          req.direction = dir;
          req.unit = StepUnit::Instruction;
          req.tid = t;
          if (watch) req.conditions.watchpoints = {*watch};
          auto got = tl.step_by(req, nullptr);
          REQUIRE(got.ok());
          CHECK(got->unclassified == 0);
          auto want = s.oracle(e, t, m, dir);
          bool fwd = dir == Direction::Forward;
          uint64_t target = want ? *want : (fwd ? s.count() : 0);
          std::optional<uint64_t> access;
          if (watch) access = fwd ? s.watch_on_the_way(e, target, dir, *watch) : s.watch_on_the_way(e, target, dir, *watch);
          if (access) {
            CHECK(got->kind == StopKind::Watchpoint);
            CHECK(got->hit_eid == *access);
            CHECK(got->eid == s.stop_of(*access, dir));
            CHECK(got->tid == s.prog.steps[*access].tid);
          } else if (want) {
            CHECK(got->kind == StopKind::Step);
            CHECK(got->eid == *want);
            CHECK(got->tid == t);
          } else {
            CHECK(got->kind == (fwd ? StopKind::HistoryEnd : StopKind::HistoryBegin));
            CHECK(got->eid == target);
          }
          CHECK(tl.eid() == got->eid);
        }
}

}  // namespace

TEST_CASE("motion suite: step in, over and out both ways agree with the frame oracle on every arch") {
  for (ArchId arch : kArches)
    for (uint32_t threads : {1u, 2u}) {
      CAPTURE(arch_desc(arch).name);
      CAPTURE(threads);
      Suite s(arch, threads);
      check_steps(s, 5, std::nullopt);
    }
}

TEST_CASE("motion suite: a watched access on the way stops a step, at the arch's position") {
  for (ArchId arch : kArches) {
    CAPTURE(arch_desc(arch).name);
    Suite s(arch, 2);
    check_steps(s, 7, Watchpoint{test::kMotionData + 20, 4, WatchKind::Write});
    check_steps(s, 11, Watchpoint{test::kMotionData + 3, 2, WatchKind::Access});
  }
}
