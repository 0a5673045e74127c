// The seek replay's pcs wait in the applier (StateApplier::defer_pcs,
// engine/cursor.cpp): a replay writes each thread's pc on every step and
// only the last value is read. Whatever else writes or invalidates a pc in
// between (a register effect, also one from another thread's step, an
// unknown marker, a step of size 0, position()) must win over the waiting
// value exactly as it does when every pc goes in at once.
#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "engine/cursor.h"
#include "engine/state_apply.h"
#include "temp_synthetic_trace.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_deferred_pcs {

using namespace ttd;

namespace {

const ArchDesc& x64() { return arch_desc(ArchId::X86_64); }

struct Applied {
  MachineState st{x64()};
  std::vector<ThreadSlot> slots{{100, 1}, {101, 1}};
};

// Runs `calls` on an applier at once and on one that defers the pcs
// (flushed at the end); both states must be equal.
void same_either_way(const std::function<void(StateApplier&)>& calls) {
  Applied now, deferred;
  {
    StateApplier a(now.st, now.slots);
    calls(a);
  }
  {
    StateApplier a(deferred.st, deferred.slots);
    a.defer_pcs();
    calls(a);
    a.flush_pcs();
    a.flush_pcs();  // a second flush changes nothing
  }
  for (uint64_t tid : {100u, 101u}) {
    const ThreadState* n = now.st.find_thread(tid);
    const ThreadState* d = deferred.st.find_thread(tid);
    REQUIRE((n == nullptr) == (d == nullptr));
    if (n) CHECK_MESSAGE(n->regs.get_u64(x64().pc_index) == d->regs.get_u64(x64().pc_index), "thread ", tid);
  }
  CHECK(now.st.digest() == deferred.st.digest());
}

void put_u64(StateApplier& a, uint32_t tidx, uint16_t reg, uint64_t v) {
  uint8_t b[8];
  std::memcpy(b, &v, 8);
  a.reg(tidx, reg, b, 8);
}

}  // namespace

TEST_CASE("deferred pcs: the last step's end wins, per thread") {
  same_either_way([](StateApplier& a) {
    a.end_step(0, 0x1000, 4);
    a.end_step(1, 0x2000, 2);
    a.end_step(0, 0x1004, 3);
  });
}

TEST_CASE("deferred pcs: a pc register effect after a step's end wins, from its own or another thread's step") {
  const uint16_t pc = x64().pc_index;
  same_either_way([&](StateApplier& a) {
    a.end_step(1, 0x2000, 2);       // thread 1's pc waits: 0x2002
    a.end_step(0, 0x1000, 4);
    put_u64(a, 1, pc, 0x7000);      // thread 0's step sets thread 1's pc
    a.end_step(0, 0x1004, 4);
  });
  same_either_way([&](StateApplier& a) {
    a.end_step(0, 0x1000, 4);
    put_u64(a, 0, pc, 0x9000);      // a later step of size 0 sets its own pc
  });
}

TEST_CASE("deferred pcs: an unknown pc, a step of size 0 and position() drop the waiting value") {
  const uint16_t pc = x64().pc_index;
  same_either_way([&](StateApplier& a) {
    a.end_step(0, 0x1000, 4);
    a.reg_unknown(0, pc);           // stays unknown
  });
  same_either_way([&](StateApplier& a) {
    a.end_step(1, 0x2000, 2);
    a.begin_step(1, 0x3000, 0);     // a size-0 step: its pc, and no end
    a.end_step(1, 0x3000, 0);
  });
  same_either_way([&](StateApplier& a) {
    a.end_step(0, 0x1000, 4);
    a.end_step(1, 0x2000, 2);
    a.position(0, 0x1004);
  });
}

TEST_CASE("seek with deferred pcs: steps that set another thread's pc reach the linear-replay state") {
  // Two threads taking turns; every fifth step of thread 100 moves thread
  // 101's pc (as a debugger-injected jump or a context restore would), after
  // 101's own steps left it waiting.
  test::SynthTrace t = test::make_synthetic(400, 2, 5);
  const uint16_t pc = x64().pc_index;
  for (size_t i = 0; i < t.steps.size(); ++i)
    if (t.steps[i].info.tid == 100 && i % 5 == 2) {
      uint64_t v = 0x600000 + i * 16;
      std::vector<uint8_t> bytes(8);
      std::memcpy(bytes.data(), &v, 8);
      t.steps[i].effects.push_back({test::SynthEffect::Reg, 101, pc, 0, bytes});
    }
  test::TempSynthTrace tt(std::move(t));
  auto tr = Trace::open(tt.path, tt.options(16));
  REQUIRE(tr.ok());
  const auto ref = test::reference_digests(*tt.synth);
  Cursor c(*tr);
  for (uint64_t e = 0; e <= 400; ++e) {
    REQUIRE(c.seek(e).ok());
    CHECK_MESSAGE(c.state().digest() == ref[e], "forward EID ", e);
  }
  std::mt19937 rng(11);
  for (int i = 0; i < 200; ++i) {
    const uint64_t e = rng() % 401;
    REQUIRE(c.seek(e).ok());
    CHECK_MESSAGE(c.state().digest() == ref[e], "random EID ", e);
  }
}

}  // namespace test_deferred_pcs
