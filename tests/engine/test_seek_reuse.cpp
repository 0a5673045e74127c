// Seeks that reuse what the cursor holds (engine/cursor.cpp): a seek back
// within the chunk at hand restores its keyframe from the blob bytes the
// cursor kept and replays the chunk's stream without reading it again; a
// seek forward replays from the state at hand. Each must give the state a
// fresh cursor gets (the synthetic trace's digest at that EID), in any
// order, across chunk ends and after a chunk the cursor has replayed into.
#include <doctest/doctest.h>

#include <random>

#include "engine/cursor.h"
#include "temp_synthetic_trace.h"

using namespace ttd;

namespace {

constexpr uint64_t kBase = 0x7000000;
constexpr uint32_t kK = 32;

// Every step writes a register and 8 bytes into one of 40 pages, and every
// ninth step reads 3 bytes of another page with their value.
test::SynthTrace writer(uint64_t steps) {
  test::SynthTrace t;
  t.initial.push_back({test::SynthEffect::Map, 1, 0, kBase, std::vector<uint8_t>(64 * kPageSize, 0)});
  for (uint64_t i = 0; i < steps; ++i) {
    test::SynthStep s;
    s.info = fmt::StepInfo{100, 1, 0x401000 + (i % 7) * 4, 4, fmt::StepKind::Instruction};
    std::vector<uint8_t> v(8);
    for (int b = 0; b < 8; ++b) v[b] = uint8_t(i * 5 + b * 11 + 3);
    s.effects.push_back({test::SynthEffect::Reg, 100, 2, 0, v});
    s.effects.push_back({test::SynthEffect::Write, 100, 0, kBase + (i % 40) * kPageSize + (i * 24) % 4000, v});
    if (i % 9 == 0)
      s.effects.push_back({test::SynthEffect::Read, 100, 0, kBase + ((i + 13) % 40) * kPageSize + 8, {1, 2, uint8_t(i)}});
    t.steps.push_back(std::move(s));
  }
  return t;
}

}  // namespace

TEST_CASE("seeks back and forth within a chunk, and across chunk ends, give a fresh cursor's state") {
  test::TempSynthTrace tt(writer(10 * kK + 5));
  auto t = Trace::open(tt.path, tt.options(kK));
  REQUIRE(t.ok());
  const auto ref = test::reference_digests(*tt.synth);
  const uint64_t n = tt.synth->steps.size();
  Cursor c(*t);
  auto at = [&](uint64_t e, const char* how) {
    REQUIRE(c.seek(e).ok());
    CHECK_MESSAGE(c.state().digest() == ref[e], how, " EID ", e);
    // A fresh cursor, for the pc and thread as well.
    Cursor fresh(*t);
    REQUIRE(fresh.seek(e).ok());
    CHECK(fresh.state().digest() == ref[e]);
    CHECK(fresh.current_tid() == c.current_tid());
    CHECK((fresh.current_step() ? fresh.current_step()->pc : 0) == (c.current_step() ? c.current_step()->pc : 0));
  };
  // Reverse steps through three chunks: every seek but the chunk's first
  // reuses the kept blobs.
  for (uint64_t e = 3 * kK + 7; e-- > kK - 3;) at(e, "reverse step");
  // Forward across a chunk end (the stream buffer now holds the next
  // chunk), then back into the first chunk: its blobs must be read again.
  at(2 * kK - 2, "before the end");
  at(2 * kK + 3, "forward across");
  at(2 * kK - 1, "back across");
  at(2 * kK + 1, "forward again");
  at(n, "the end");
  at(n - 1, "back from the end");
  std::mt19937 rng(11);
  for (int i = 0; i < 200; ++i) {
    uint64_t base = rng() % (n + 1);
    at(base, "random");
    at(base - std::min<uint64_t>(base, rng() % 5), "a little back");
  }
}
