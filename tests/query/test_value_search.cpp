// Value search in space (the state at an EID) and in time (first
// appearance), against a linear reference replay of the synthetic stream.
#include <doctest/doctest.h>

#include <algorithm>

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

TEST_CASE("hex patterns: spaces and 0x are fine; empty, odd and non-hex are errors") {
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
