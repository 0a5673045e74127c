// Timeline::step (rr's stepi, what gdb's s / bs and Python's step_* ask)
// against a brute-force oracle from the step stream, and the state it
// reaches against linear replay, whatever the mix of forward and backward
// steps and seeks (the cursor pair swaps two cursors underneath).
#include <doctest/doctest.h>

#include <optional>
#include <random>

#include "engine/motion/timeline.h"
#include "temp_synthetic_trace.h"

using namespace ttd;

namespace {

struct StepTrace {
  test::TempSynthTrace tmp;
  std::shared_ptr<test::SynthTrace> synth;
  std::shared_ptr<const Trace> trace;
  StepTrace(uint64_t steps, uint32_t threads) : tmp(test::make_synthetic(steps, threads, 11 + threads)), synth(tmp.synth) {
    auto t = Trace::open(tmp.path, tmp.options(32));
    REQUIRE(t.ok());
    trace = *t;
  }
  uint64_t tid_at(uint64_t e) const { return synth->steps[e].info.tid; }
  uint64_t count() const { return synth->steps.size(); }
  // rr's stepi, by brute force: (kind, eid) of thread t's step from `from`.
  std::pair<StopKind, uint64_t> oracle(uint64_t from, uint64_t t, bool forward) const {
    if (forward) {
      std::optional<uint64_t> first;
      for (uint64_t k = from; k < count(); ++k)
        if (tid_at(k) == t) {
          if (!first) first = k;
          else return {StopKind::Step, k};
        }
      return {StopKind::HistoryEnd, count()};
    }
    for (uint64_t k = from; k-- > 0;)
      if (tid_at(k) == t) return {StopKind::Step, k};
    return {StopKind::HistoryBegin, 0};
  }
};

}  // namespace

TEST_CASE("Timeline::step agrees with the oracle: alternating, runs in one direction, seeks, both ends") {
  for (uint32_t threads : {1u, 3u}) {
    CAPTURE(threads);
    StepTrace st(400, threads);
    auto ref = test::reference_digests(*st.synth);
    Timeline tl(st.trace);
    std::mt19937_64 rng(7);
    // Alternation (the common case), runs (consecutive steps back must leave
    // the spare behind), jumps (the spare far away) and both boundaries.
    for (int i = 0; i < 3000; ++i) {
      int op = static_cast<int>(rng() % 10);
      if (op == 0) {
        uint64_t e = rng() % (st.count() + 1);
        if (i % 50 == 0) e = i % 100 == 0 ? 0 : st.count();  // the ends
        REQUIRE(tl.seek(e).ok());
        CHECK(tl.state().digest() == ref[e]);
        continue;
      }
      bool forward = op <= 4;
      std::optional<uint64_t> tid;
      if (rng() % 4 == 0) tid = tl.current_tid();
      uint64_t from = tl.eid(), t = tid.value_or(tl.current_tid());
      auto [kind, eid] = st.oracle(from, t, forward);
      Stop s = tl.step(forward ? Direction::Forward : Direction::Backward, tid);
      CAPTURE(i);
      CAPTURE(forward);
      CHECK(static_cast<int>(s.kind) == static_cast<int>(kind));
      CHECK(s.eid == eid);
      REQUIRE(tl.eid() == eid);
      if (kind == StopKind::Step) CHECK(s.tid == t);
      CHECK(tl.state().digest() == ref[eid]);
    }
  }
}

TEST_CASE("Timeline::step for a thread the trace does not have reaches a history boundary") {
  StepTrace st(100, 1);
  Timeline tl(st.trace);
  REQUIRE(tl.seek(50).ok());
  CHECK(tl.step(Direction::Forward, uint64_t{999}).kind == StopKind::HistoryEnd);
  CHECK(tl.eid() == 100);
  REQUIRE(tl.seek(50).ok());
  CHECK(tl.step(Direction::Backward, uint64_t{999}).kind == StopKind::HistoryBegin);
  CHECK(tl.eid() == 0);
}
