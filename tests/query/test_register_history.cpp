// Register history against brute force over the synthetic step stream.
#include <doctest/doctest.h>

#include <random>

#include "engine/query/register_history.h"
#include "query_fixture.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_register_history {

using namespace ttd;
using namespace ttd::query;

namespace {

struct Expected {
  uint64_t eid, tid;
  std::vector<uint8_t> value;
};

std::vector<Expected> brute_force(const test::SynthTrace& s, const RegisterQuery& q) {
  std::vector<Expected> out;
  for (uint64_t i = q.start.window.from; i < q.start.window.to; ++i)
    for (const auto& e : s.steps[i].effects)
      if (e.kind == test::SynthEffect::Reg && e.reg == q.reg && (!q.tid || *q.tid == e.tid)) out.push_back({i, e.tid, e.bytes});
  if (q.start.direction == Direction::Backward) std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("register writes match brute force for every register, window and direction") {
  for (uint32_t threads : {1u, 3u}) {
    test::SynthFixture f(1300, threads, 21 + threads, 64);
    REQUIRE(f.trace);
    std::mt19937_64 rng(3);
    for (int round = 0; round < 200; ++round) {
      RegisterQuery q;
      q.reg = uint16_t(rng() % 8);
      uint64_t a = rng() % 1300, b = rng() % 1300;
      if (a > b) std::swap(a, b);
      q.start.window = {a, b + 1};
      q.start.direction = rng() % 2 ? Direction::Forward : Direction::Backward;
      if (threads > 1 && rng() % 3 == 0) q.tid = 100 + rng() % threads;
      size_t limit = rng() % 2 ? 1 + rng() % 4 : 0;
      auto got = find_register_writes(*f.trace, q, limit);
      REQUIRE_MESSAGE(got.ok(), got.error().to_string());
      auto want = brute_force(*f.synth, q);
      size_t n = limit ? std::min(limit, want.size()) : want.size();
      REQUIRE(got->size() == n);
      for (size_t i = 0; i < n; ++i) {
        CHECK((*got)[i].eid == want[i].eid);
        CHECK((*got)[i].tid == want[i].tid);
        REQUIRE((*got)[i].value.has_value());
        CHECK(*(*got)[i].value == want[i].value);
        CHECK((*got)[i].pc == f.synth->steps[want[i].eid].info.pc);
      }
    }
  }
}

TEST_CASE("previous and next write of a register from an EID") {
  test::SynthFixture f(800, 1, 4, 32);
  REQUIRE(f.trace);
  auto rbx = resolve_register(*f.trace, "rbx");
  REQUIRE(rbx.ok());
  for (uint64_t at : {0ull, 1ull, 100ull, 417ull, 799ull, 800ull}) {
    std::optional<uint64_t> prev, next;
    for (uint64_t i = 0; i < 800; ++i)
      for (const auto& e : f.synth->steps[i].effects)
        if (e.kind == test::SynthEffect::Reg && e.reg == *rbx) {
          if (i < at) prev = i;
          if (i >= at && !next) next = i;
        }
    auto p = previous_register_write(*f.trace, *rbx, at);
    auto n = next_register_write(*f.trace, *rbx, at);
    REQUIRE(p.ok());
    REQUIRE(n.ok());
    CHECK((*p ? std::optional<uint64_t>((*p)->eid) : std::nullopt) == prev);
    CHECK((*n ? std::optional<uint64_t>((*n)->eid) : std::nullopt) == next);
    if (*p) CHECK(register_value_u64(*f.trace, **p).has_value());
  }
}

TEST_CASE("a register written once long ago is found by skipping chunks") {
  auto s = std::make_shared<test::SynthTrace>();
  const ArchDesc& a = arch_desc(ArchId::X86_64);
  uint16_t r12 = *a.find("r12"), rax = *a.find("rax");
  for (uint64_t i = 0; i < 20000; ++i) {
    test::SynthStep st;
    st.info = fmt::StepInfo{100, 1, 0x401000 + (i % 5) * 4, 4, fmt::StepKind::Instruction};
    st.effects.push_back({test::SynthEffect::Reg, 100, rax, 0, {uint8_t(i), 0, 0, 0, 0, 0, 0, 0}});
    if (i == 123) st.effects.push_back({test::SynthEffect::Reg, 100, r12, 0, {0x2a, 0, 0, 0, 0, 0, 0, 0}});
    s->steps.push_back(st);
  }
  std::string path = test::temp_path("once");
  { std::ofstream(path) << "once"; }
  OpenOptions o;
  o.keyframe_interval = 256;
  o.reader_factory = [s]() -> Result<std::unique_ptr<fmt::TraceReader>> {
    return std::unique_ptr<fmt::TraceReader>(new test::SynthReader(s));
  };
  auto t = Trace::open(path, o);
  REQUIRE(t.ok());
  auto w = previous_register_write(**t, r12, 20000);
  REQUIRE(w.ok());
  REQUIRE(w->has_value());
  CHECK((*w)->eid == 123);
  CHECK(register_value_u64(**t, **w) == 0x2a);
  auto n = next_register_write(**t, r12, 124);
  REQUIRE(n.ok());
  CHECK(!n->has_value());
  std::remove(path.c_str());
  std::remove((path + ".ttdidx").c_str());
}

TEST_CASE("register names: unknown names and the pc are errors that say why") {
  test::SynthFixture f(10, 1, 1);
  REQUIRE(f.trace);
  auto bad = resolve_register(*f.trace, "xyz");
  REQUIRE(!bad.ok());
  CHECK(bad.error().to_string().find("no register 'xyz' on x86_64") != std::string::npos);
  auto pc = resolve_register(*f.trace, "rip");
  REQUIRE(!pc.ok());
  CHECK(pc.error().to_string().find("pc") != std::string::npos);
  CHECK(resolve_register(*f.trace, "RAX").ok());
}

}  // namespace test_register_history
