// CursorPair (tools/ttd/cursor_pair.h, the stub's single steps) must report
// what a plain Cursor reports for the same steps, and reach the state linear
// replay reaches, whatever the mix of forward and backward steps and seeks.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "engine/cursor.h"
#include "temp_synthetic_trace.h"
#include "tools/ttd/cursor_pair.h"

using namespace ttd;
namespace fs = std::filesystem;

namespace {

struct PairTrace {
  test::TempSynthTrace tmp;
  std::shared_ptr<test::SynthTrace> synth;
  std::shared_ptr<const Trace> trace;
  PairTrace(uint64_t steps, uint32_t threads)
      : tmp(test::make_synthetic(steps, threads, 11 + threads)), synth(tmp.synth) {
    auto t = Trace::open(tmp.path, tmp.options(32));
    REQUIRE(t.ok());
    trace = *t;
  }
};

void same_stop(const Stop& got, const Stop& want) {
  CHECK(static_cast<int>(got.kind) == static_cast<int>(want.kind));
  CHECK(got.eid == want.eid);
  CHECK(got.tid == want.tid);
}

}  // namespace

TEST_CASE("CursorPair steps like a Cursor: alternating, runs in one direction, seeks, both ends") {
  for (uint32_t threads : {1u, 3u}) {
    CAPTURE(threads);
    PairTrace pt(400, threads);
    auto ref = test::reference_digests(*pt.synth);
    cli::CursorPair pair(pt.trace);
    Cursor plain(pt.trace);
    std::mt19937_64 rng(7);
    // Alternation (the common case), runs (consecutive steps back must leave
    // the spare behind), jumps (the spare far away) and both boundaries.
    for (int i = 0; i < 3000; ++i) {
      int op = static_cast<int>(rng() % 10);
      if (op == 0) {
        uint64_t e = rng() % (pt.synth->steps.size() + 1);
        if (i % 50 == 0) e = i % 100 == 0 ? 0 : pt.synth->steps.size();  // the ends
        REQUIRE(pair.here().seek(e).ok());
        REQUIRE(plain.seek(e).ok());
        continue;
      }
      bool forward = op <= 4;
      std::optional<uint64_t> tid;
      if (rng() % 4 == 0) tid = plain.current_tid();
      Stop a = forward ? pair.step_forward(tid) : pair.step_backward(tid);
      Stop b = forward ? plain.step_forward(tid) : plain.step_backward(tid);
      CAPTURE(i);
      CAPTURE(forward);
      same_stop(a, b);
      REQUIRE(pair.here().eid() == plain.eid());
      CHECK(pair.here().current_tid() == plain.current_tid());
      CHECK(pair.here().state().digest() == ref[plain.eid()]);
    }
  }
}

TEST_CASE("CursorPair: a step for a thread the trace does not have goes to the cursor") {
  PairTrace pt(100, 1);
  cli::CursorPair pair(pt.trace);
  Cursor plain(pt.trace);
  REQUIRE(pair.here().seek(50).ok());
  REQUIRE(plain.seek(50).ok());
  same_stop(pair.step_forward(uint64_t{999}), plain.step_forward(uint64_t{999}));
  CHECK(pair.here().eid() == plain.eid());
  REQUIRE(pair.here().seek(50).ok());
  REQUIRE(plain.seek(50).ok());
  same_stop(pair.step_backward(uint64_t{999}), plain.step_backward(uint64_t{999}));
  CHECK(pair.here().eid() == plain.eid());
}
