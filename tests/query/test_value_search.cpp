// Value search in space (the state at an EID) and in time (first
// appearance), against a linear reference replay of the synthetic stream.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <ctime>

#include "engine/query/memory_pattern.h"
#include "engine/query/value_search.h"
#include "query_fixture.h"

using namespace ttd;
using namespace ttd::query;

namespace {

// Known bytes of process 1 at every position, by linear replay.
struct ReferenceMemory {
  std::vector<std::map<uint64_t, uint8_t>> at;  // position -> addr -> byte
  explicit ReferenceMemory(const test::SynthTrace& t) {
    std::map<uint64_t, uint8_t> m;
    auto apply = [&](const test::SynthEffect& e) {
      if (e.kind == test::SynthEffect::Write || e.kind == test::SynthEffect::Map)
        for (size_t i = 0; i < e.bytes.size(); ++i) m[e.addr + i] = e.kind == test::SynthEffect::Map ? 0 : e.bytes[i];
    };
    for (auto& e : t.initial) apply(e);
    for (auto& s : t.steps) {
      at.push_back(m);
      for (auto& e : s.effects) apply(e);
    }
    at.push_back(m);
  }
  std::vector<uint64_t> find(uint64_t pos, const std::vector<uint8_t>& pat) const {
    std::vector<uint64_t> out;
    const auto& m = at[pos];
    for (auto& [addr, b] : m) {
      bool ok = true;
      for (size_t k = 0; k < pat.size() && ok; ++k) {
        auto it = m.find(addr + k);
        ok = it != m.end() && it->second == pat[k];
      }
      if (ok) out.push_back(addr);
    }
    return out;
  }
};

}  // namespace

TEST_CASE("hex patterns: spaces and 0x are fine, empty, odd and non-hex are errors") {
  CHECK(*parse_hex_bytes("de ad BE ef") == std::vector<uint8_t>{0xde, 0xad, 0xbe, 0xef});
  CHECK(*parse_hex_bytes("0x0102") == std::vector<uint8_t>{1, 2});
  CHECK(parse_hex_bytes("").error().message.find("empty") != std::string::npos);
  CHECK(parse_hex_bytes("abc").error().message.find("odd") != std::string::npos);
  CHECK(parse_hex_bytes("zz").error().message.find("not a hex digit") != std::string::npos);
}

TEST_CASE("search in space matches the reference at many positions") {
  test::SynthFixture f(400, 1, 17, 32);
  REQUIRE(f.trace);
  ReferenceMemory ref(*f.synth);
  std::vector<std::vector<uint8_t>> patterns = {{1, 2, 3, 4}, {0xab, 0xab, 0xab}, {0x10, 0x00}, {0x2a, 0x01}};
  for (uint64_t pos : {0ull, 1ull, 150ull, 200ull, 201ull, 399ull, 400ull}) {
    for (auto& p : patterns) {
      SpaceSearch q;
      q.pattern = p;
      q.at = pos;
      auto got = search_memory(f.trace, q);
      REQUIRE_MESSAGE(got.ok(), got.error().to_string());
      std::vector<uint64_t> addrs;
      for (auto& m : *got) addrs.push_back(m.addr);
      auto want = ref.find(pos, p);
      std::string g, w;
      for (auto a : addrs) g += std::to_string(a) + " ";
      for (auto a : want) w += std::to_string(a) + " ";
      CHECK_MESSAGE(g == w, "position ", pos);
    }
  }
  SpaceSearch q;
  q.pattern = {0, 0};
  q.at = 10;
  q.within = AddressRange{0x10020, 8};
  q.limit = 3;
  auto got = search_memory(f.trace, q);
  REQUIRE(got.ok());
  REQUIRE(got->size() == 3);
  CHECK((*got)[0].addr == 0x10020);
}

TEST_CASE("first appearance matches the reference") {
  test::SynthFixture f(400, 1, 17, 32);
  REQUIRE(f.trace);
  ReferenceMemory ref(*f.synth);
  auto first_at = [&](const std::vector<uint8_t>& p, uint64_t from, uint64_t to) -> std::optional<uint64_t> {
    for (uint64_t pos = from; pos <= to; ++pos)
      if (!ref.find(pos, p).empty()) return pos;
    return std::nullopt;
  };
  std::vector<std::vector<uint8_t>> patterns = {{0xab, 0xab, 0xab, 0xab}, {1, 2, 3, 4}, {0x58, 0x00}, {0x7b, 0x01}, {0xee, 0xee}};
  for (auto& p : patterns) {
    for (auto [from, to] : {std::pair<uint64_t, uint64_t>{0, 400}, {100, 300}, {201, 400}}) {
      TimeSearch q;
      q.pattern = p;
      q.window = {from, to};
      auto got = first_appearance(f.trace, q);
      REQUIRE_MESSAGE(got.ok(), got.error().to_string());
      auto want = first_at(p, from, to);
      REQUIRE((got->has_value()) == want.has_value());
      if (want) {
        CHECK((*got)->eid == *want);
        CHECK(!ref.find(*want, p).empty());
        if (*want > from) CHECK((*got)->writer_eid == *want - 1);
      }
    }
  }
  // The 32-byte 0xab write at step 200 crosses a page.
  TimeSearch q;
  q.pattern = std::vector<uint8_t>(20, 0xab);
  q.window = {0, 400};
  q.within = AddressRange{0x13000, 0x2000};
  auto got = first_appearance(f.trace, q);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK((*got)->eid == 201);
  CHECK((*got)->addr == 0x13ff0);
}

TEST_CASE("pattern search is linear: a 30,000-byte self-similar pattern over zeros takes no longer than a short one") {
  // 1 MiB of known zeros at 0x100000 with one 01 byte near the end, then a
  // hole (unknown bytes), then more zeros. Boyer-Moore-Horspool needed
  // pattern x memory (~3e10 comparisons, minutes) for the first pattern.
  constexpr uint64_t kBase = 0x100000, kSize = 1 << 20, kOne = kBase + kSize - 40000;
  PagedMemory m;
  std::vector<uint8_t> zeros(kSize, 0);
  m.write(kBase, zeros.data(), kSize);
  uint8_t one = 1;
  m.write(kOne, &one, 1);
  m.write(kBase + kSize + 100, zeros.data(), 50000);  // after a 100-byte hole
  std::vector<uint8_t> one_then_zeros(30000, 0);
  one_then_zeros[0] = 1;
  std::vector<uint8_t> zeros_then_one(30000, 0);
  zeros_then_one.back() = 1;
  std::vector<uint8_t> all_zeros(30000, 0);
  // Thread CPU time, not wall time: a loaded machine must not fail this, and
  // the quadratic search it guards against took minutes of CPU.
  auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
  };
  auto started = cpu_now();
  auto matches = [&](const std::vector<uint8_t>& p) {
    std::vector<uint64_t> out;
    find_pattern(m, p, 0, ~0ull, [&](uint64_t a) { return out.push_back(a), true; });
    return out;
  };
  CHECK(matches(one_then_zeros) == std::vector<uint64_t>{kOne});
  CHECK(matches(zeros_then_one) == std::vector<uint64_t>{kOne - 29999});
  // Every alignment of zeros matches, except across the 01 and the hole.
  auto z = matches(all_zeros);
  uint64_t before_one = kOne - kBase - 30000 + 1, after_one = kBase + kSize - (kOne + 1) - 30000 + 1,
           past_hole = 50000 - 30000 + 1;
  CHECK(z.size() == before_one + after_one + past_hole);
  CHECK(std::find(z.begin(), z.end(), kBase + kSize + 100) != z.end());
  CHECK(std::find(z.begin(), z.end(), kBase + kSize - 30000 + 50) == z.end());  // would cross the hole
  auto took = cpu_now() - started;
  MESSAGE("three 30,000-byte searches over 1 MiB: " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                                                    << " ms of CPU");
  CHECK(took < std::chrono::seconds(5));
}

TEST_CASE("pattern size: longer than the limit is an error that names both, and the limit can be raised") {
  test::SynthFixture f(50, 1, 17, 32);
  REQUIRE(f.trace);
  SpaceSearch q;
  q.pattern = std::vector<uint8_t>(kDefaultMaxPattern + 1, 0xab);
  q.at = 10;
  auto r = search_memory(f.trace, q);
  REQUIRE(!r.ok());
  CHECK(r.error().message.find(std::to_string(kDefaultMaxPattern + 1) + " bytes is longer than the limit of " +
                               std::to_string(kDefaultMaxPattern)) != std::string::npos);
  CHECK(r.error().message.find("--max-pattern") != std::string::npos);
  SearchControl raised;
  raised.max_pattern = kDefaultMaxPattern + 1;
  CHECK(search_memory(f.trace, q, raised).ok());
  TimeSearch t;
  t.pattern = std::vector<uint8_t>(kDefaultMaxPattern + 1, 0xab);
  t.window = {0, 50};
  CHECK(!first_appearance(f.trace, t).ok());
  t.max_pattern = kDefaultMaxPattern + 1;
  CHECK(first_appearance(f.trace, t).ok());
}

TEST_CASE("search in space streams matches and stops on cancel") {
  test::SynthFixture f(400, 1, 17, 32);
  REQUIRE(f.trace);
  SpaceSearch q;
  q.pattern = {0, 0};
  q.at = 10;
  size_t seen = 0;
  CHECK(scan_memory(f.trace, q, [&](const ValueMatch&) { return ++seen < 5; }).ok());
  CHECK(seen == 5);
  // The scan polls cancel every few pages and stops.
  PagedMemory m;
  std::vector<uint8_t> zeros(1 << 20, 0);
  m.write(0x100000, zeros.data(), zeros.size());
  uint8_t pat[] = {0, 0};
  size_t polls = 0, hits = 0;
  bool done = PatternFinder(pat).find(m, 0, ~0ull, [&](uint64_t) { return ++hits, true; }, [&] { return ++polls == 2; });
  CHECK(!done);
  CHECK(polls == 2);
  CHECK(hits < zeros.size() / 2);
}
