// Executions against brute force, with pc ranges, resolutions, threads,
// directions and resuming.
#include <doctest/doctest.h>

#include <map>
#include <random>

#include "engine/query/executions.h"
#include "query_fixture.h"

using namespace ttd;
using namespace ttd::query;

namespace {

std::vector<uint64_t> brute_force(const test::SynthTrace& s, const ExecutionQuery& q) {
  const EidWindow& w = q.start.window;
  bool fwd = q.start.direction == Direction::Forward;
  std::vector<uint64_t> all;
  for (uint64_t i = w.from; i < w.to; ++i) {
    const auto& st = s.steps[i].info;
    if (st.pc >= q.pc_lo && st.pc < q.pc_hi && (!q.tid || *q.tid == st.tid)) all.push_back(i);
  }
  if (!fwd) std::reverse(all.begin(), all.end());
  if (!q.resolution) return all;
  std::vector<uint64_t> out;
  std::map<uint64_t, bool> used;
  for (uint64_t e : all) {
    uint64_t bucket = (e - w.from) / q.resolution;
    if (used[bucket]) continue;
    used[bucket] = true;
    out.push_back(e);
  }
  return out;
}

std::vector<uint64_t> eids(const std::vector<Execution>& v) {
  std::vector<uint64_t> out;
  for (auto& e : v) out.push_back(e.eid);
  return out;
}

}  // namespace

TEST_CASE("executions match brute force") {
  for (uint32_t threads : {1u, 2u}) {
    test::SynthFixture f(2000, threads, 31, 64);
    REQUIRE(f.trace);
    std::mt19937_64 rng(8);
    for (int round = 0; round < 300; ++round) {
      ExecutionQuery q;
      if (rng() % 2) {
        q.pc_lo = 0x401000 + (rng() % 7) * 4;
        q.pc_hi = q.pc_lo + 1;
      } else {
        q.pc_lo = 0x401000 + rng() % 0x1100;
        q.pc_hi = q.pc_lo + 1 + rng() % 0x1000;
      }
      uint64_t a = rng() % 2000, b = rng() % 2000;
      if (a > b) std::swap(a, b);
      q.start.window = {a, b + 1};
      q.start.direction = rng() % 2 ? Direction::Forward : Direction::Backward;
      if (rng() % 2) q.resolution = 1 + rng() % 300;
      if (threads > 1 && rng() % 3 == 0) q.tid = 100 + rng() % threads;
      size_t limit = rng() % 3 == 0 ? 1 + rng() % 5 : 0;
      auto got = find_executions(*f.trace, q, limit);
      REQUIRE_MESSAGE(got.ok(), got.error().to_string());
      auto want = brute_force(*f.synth, q);
      if (limit && want.size() > limit) want.resize(limit);
      CHECK_MESSAGE(eids(*got) == want, "round ", round);
    }
  }
}

TEST_CASE("executions resume after each hit, with and without a resolution") {
  test::SynthFixture f(3000, 1, 2, 64);
  REQUIRE(f.trace);
  for (uint64_t resolution : {0ull, 1ull, 50ull, 1000ull}) {
    for (auto dir : {Direction::Forward, Direction::Backward}) {
      ExecutionQuery q;
      q.pc_lo = 0x401008;
      q.pc_hi = 0x401009;
      q.start.window = {13, 2987};
      q.start.direction = dir;
      q.resolution = resolution;
      auto want = find_executions(*f.trace, q, 0);
      REQUIRE(want.ok());
      auto it = executions(f.trace, q);
      std::vector<uint64_t> got;
      for (;;) {
        auto h = it.next();
        REQUIRE(h.ok());
        if (!*h) break;
        got.push_back((**h).eid);
      }
      CHECK(got == eids(*want));
      // One hit at a time through tokens.
      std::vector<uint64_t> stepwise;
      for (;;) {
        auto one = find_executions(*f.trace, q, 1);
        REQUIRE(one.ok());
        if (one->empty()) break;
        stepwise.push_back((*one)[0].eid);
        q.start.resume = (*one)[0].next;
      }
      CHECK(stepwise == eids(*want));
    }
  }
}

TEST_CASE("executions: empty and reversed pc ranges are errors") {
  test::SynthFixture f(10, 1, 1);
  REQUIRE(f.trace);
  ExecutionQuery q;
  q.start.window = {0, 10};
  q.pc_lo = q.pc_hi = 0x401000;
  auto r = find_executions(*f.trace, q, 0);
  REQUIRE(!r.ok());
  CHECK(r.error().to_string().find("empty pc range") != std::string::npos);
  q.pc_hi = 0x400000;
  r = find_executions(*f.trace, q, 0);
  REQUIRE(!r.ok());
  CHECK(r.error().to_string().find("reversed") != std::string::npos);
}
