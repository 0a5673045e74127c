// Memory history against brute force over the synthetic step stream: every
// range, kind, direction, window, thread filter and limit, and resuming.
#include <doctest/doctest.h>

#include <random>

#include "engine/query/memory_history.h"
#include "query_fixture.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_memory_history {

using namespace ttd;
using namespace ttd::query;

namespace {

struct Expected {
  uint64_t eid, tid, pc, addr, size;
  AccessKind kind;
  std::optional<std::vector<uint8_t>> value;
};

std::vector<Expected> brute_force(const test::SynthTrace& s, const MemoryQuery& q) {
  std::vector<Expected> out;
  const EidWindow& w = q.start.window;
  for (uint64_t i = w.from; i < w.to; ++i) {
    const auto& st = s.steps[i];
    if (q.tid && *q.tid != st.info.tid) continue;
    for (const auto& e : st.effects) {
      bool write = e.kind == test::SynthEffect::Write;
      if (!write && e.kind != test::SynthEffect::Read) continue;
      if (write && q.kind == AccessFilter::Read) continue;
      if (!write && q.kind == AccessFilter::Write) continue;
      if (!q.range.overlaps(e.addr, e.bytes.size())) continue;
      Expected x{i, st.info.tid, st.info.pc, e.addr, e.bytes.size(), write ? AccessKind::Write : AccessKind::Read, std::nullopt};
      if (write) x.value = e.bytes;
      out.push_back(x);
    }
  }
  if (q.start.direction == Direction::Backward) std::reverse(out.begin(), out.end());
  return out;
}

void check_same(const std::vector<MemoryAccess>& got, const std::vector<Expected>& want, size_t limit) {
  size_t n = limit ? std::min(limit, want.size()) : want.size();
  REQUIRE(got.size() == n);
  for (size_t i = 0; i < n; ++i) {
    CHECK(got[i].eid == want[i].eid);
    CHECK(got[i].tid == want[i].tid);
    CHECK(got[i].pc == want[i].pc);
    CHECK(got[i].addr == want[i].addr);
    CHECK(got[i].size == want[i].size);
    CHECK(got[i].kind == want[i].kind);
    CHECK(got[i].value == want[i].value);
    CHECK(got[i].pid == 1);
  }
}

}  // namespace

TEST_CASE("memory history matches brute force for random queries") {
  for (uint32_t threads : {1u, 3u}) {
    test::SynthFixture f(1500, threads, 11 + threads, 64);
    REQUIRE(f.trace);
    std::mt19937_64 rng(5 + threads);
    for (int round = 0; round < 300; ++round) {
      MemoryQuery q;
      uint64_t addr = 0x10000 + rng() % 0x4000;
      if (round % 3 == 0) addr = 0x10100 + (rng() % 64) * 8 + rng() % 3;  // the hot slots
      q.range = {addr, 1 + rng() % 24};
      q.kind = AccessFilter(rng() % 3);
      uint64_t a = rng() % 1500, b = rng() % 1500;
      if (a > b) std::swap(a, b);
      q.start.window = {a, b + 1};
      q.start.direction = rng() % 2 ? Direction::Forward : Direction::Backward;
      if (threads > 1 && rng() % 4 == 0) q.tid = 100 + rng() % threads;
      size_t limit = rng() % 3 == 0 ? 1 + rng() % 5 : 0;
      auto got = find_memory_accesses(*f.trace, q, limit);
      REQUIRE_MESSAGE(got.ok(), got.error().to_string());
      check_same(*got, brute_force(*f.synth, q), limit);
    }
  }
}

TEST_CASE("the write that crosses a page boundary is found from both pages") {
  test::SynthFixture f(1000, 1, 3, 64);
  REQUIRE(f.trace);
  for (uint64_t addr : {0x13ff8ull, 0x14008ull}) {
    MemoryQuery q;
    q.range = {addr, 1};
    q.kind = AccessFilter::Write;
    q.start.window = {0, 1000};
    q.start.direction = Direction::Backward;
    auto got = find_memory_accesses(*f.trace, q, 0);
    REQUIRE(got.ok());
    REQUIRE(got->size() == 1);
    CHECK((*got)[0].eid == 500);
    CHECK((*got)[0].addr == 0x13ff0);
    CHECK((*got)[0].size == 32);
  }
}

TEST_CASE("resuming with each hit's token continues exactly after it, in both directions") {
  test::SynthFixture f(1200, 2, 9, 64);
  REQUIRE(f.trace);
  for (auto dir : {Direction::Forward, Direction::Backward}) {
    MemoryQuery q;
    q.range = {0x10100, 0x200};
    q.kind = AccessFilter::Access;
    q.start.window = {37, 1111};
    q.start.direction = dir;
    auto want = find_memory_accesses(*f.trace, q, 0);
    REQUIRE(want.ok());
    REQUIRE(want->size() > 50);
    for (size_t batch : {1, 3, 7}) {
      std::vector<MemoryAccess> all;
      MemoryQuery page = q;
      for (;;) {
        auto got = find_memory_accesses(*f.trace, page, batch);
        REQUIRE(got.ok());
        all.insert(all.end(), got->begin(), got->end());
        if (got->size() < batch) break;
        page.start.resume = got->back().next;
      }
      REQUIRE(all.size() == want->size());
      for (size_t i = 0; i < all.size(); ++i) CHECK(all[i].eid == (*want)[i].eid);
    }
    // The iterator does the same.
    auto it = memory_history(f.trace, q);
    size_t n = 0;
    for (;;) {
      auto h = it.next();
      REQUIRE(h.ok());
      if (!*h) break;
      CHECK((**h).eid == (*want)[n].eid);
      ++n;
    }
    CHECK(n == want->size());
  }
}

TEST_CASE("a step that reads and writes the same bytes gives two hits, and a limit can fall between them") {
  auto s = std::make_shared<test::SynthTrace>();
  s->initial.push_back({test::SynthEffect::Map, 1, 0, 0x1000, std::vector<uint8_t>(0x1000, 0)});
  for (int i = 0; i < 10; ++i) {
    test::SynthStep st;
    st.info = fmt::StepInfo{100, 1, 0x400000 + uint64_t(i) * 4, 4, fmt::StepKind::Instruction};
    if (i == 4) {
      st.effects.push_back({test::SynthEffect::Read, 100, 0, 0x1800, {0, 0, 0, 0}});
      st.effects.push_back({test::SynthEffect::Write, 100, 0, 0x1800, {1, 0, 0, 0}});
    }
    s->steps.push_back(st);
  }
  std::string path = test::temp_path("rw");
  { std::ofstream(path) << "rw"; }
  OpenOptions o;
  o.reader_factory = [s]() -> Result<std::unique_ptr<fmt::TraceReader>> {
    return std::unique_ptr<fmt::TraceReader>(new test::SynthReader(s));
  };
  auto t = Trace::open(path, o);
  REQUIRE(t.ok());
  MemoryQuery q;
  q.range = {0x1802, 1};
  q.start.window = {0, 10};
  for (auto dir : {Direction::Forward, Direction::Backward}) {
    q.start.direction = dir;
    q.start.resume.reset();
    auto first = find_memory_accesses(**t, q, 1);
    REQUIRE(first.ok());
    REQUIRE(first->size() == 1);
    CHECK((*first)[0].kind == (dir == Direction::Forward ? AccessKind::Read : AccessKind::Write));
    CHECK(to_string((*first)[0].next) == "4+1");
    q.start.resume = (*first)[0].next;
    auto rest = find_memory_accesses(**t, q, 0);
    REQUIRE(rest.ok());
    REQUIRE(rest->size() == 1);
    CHECK((*rest)[0].kind == (dir == Direction::Forward ? AccessKind::Write : AccessKind::Read));
  }
  std::remove(path.c_str());
  std::remove((path + ".ttdidx").c_str());
}

}  // namespace test_memory_history
