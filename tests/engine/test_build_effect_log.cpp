// The two-thread build's hand-off (engine/build_effect_log.h): calls
// recorded and replayed reach the state the same calls made directly
// reach, and a log cut anywhere or with an unknown record is refused, not
// applied past its end.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "engine/build_effect_log.h"

using namespace ttd;

namespace {

// Every kind of call, twice over two threads of one process and one of
// another: `a` is a StateApplier or a BuildEffectLog.
template <class A>
void calls(A& a, const ArchDesc& arch) {
  uint8_t v[16];
  for (int i = 0; i < 16; ++i) v[i] = uint8_t(0xA0 + i);
  for (uint32_t round = 0; round < 2; ++round) {
    a.thread_begin(0);
    a.begin_step(0, 0x401000 + round, 4);
    a.reg(0, 1, v, 8);
    a.reg(0, arch.pc_index, v + 8, 8);
    a.reg_unknown(0, 2);
    a.mem_map(7, 0x10000, 0x2000, 3, round ? "" : "heap");
    a.mem_write(7, 0x10ff8, v, 16);  // across a page boundary
    a.mem_unknown(7, 0x10004, 3);
    a.mem_protect(7, 0x11000, 0x1000, 1);
    a.begin_step(1, 0x500000, 2);
    a.reg(1, 0, v, 0);
    a.mem_map(9, 0x20000, 0x1000, 7, "other");
    a.mem_write(9, 0x20010, v + 3, 5);
    a.position(1, 0x500002);
    a.mem_unmap(7, 0x11000, 0x1000);
    a.thread_end(1);
    a.position(0, 0x401010);
  }
}

}  // namespace

TEST_CASE("build effect log: replayed calls reach the state of the same calls made directly") {
  const ArchDesc& arch = arch_desc(ArchId::X86_64);
  std::vector<ThreadSlot> slots = {{100, 7}, {101, 9}};
  MachineState direct(arch), replayed(arch);
  StateApplier a(direct, slots);
  calls(a, arch);

  BuildEffectLog log;
  calls(log, arch);
  ByteBlock b = log.take();
  CHECK(log.empty());
  StateApplier r(replayed, slots);
  REQUIRE(BuildEffectLog::replay(b.bytes.get(), b.size, r));
  CHECK(replayed.digest() == direct.digest());
  CHECK(replayed.threads().size() == direct.threads().size());
  CHECK(replayed.processes().size() == 2);

  // An empty log changes nothing.
  MachineState none(arch);
  StateApplier n(none, slots);
  CHECK(BuildEffectLog::replay(nullptr, 0, n));
  CHECK(none.digest() == MachineState(arch).digest());
}

TEST_CASE("build effect log: a log cut short or with an unknown record is refused") {
  const ArchDesc& arch = arch_desc(ArchId::X86_64);
  std::vector<ThreadSlot> slots = {{100, 7}, {101, 9}};
  BuildEffectLog log;
  calls(log, arch);
  ByteBlock b = log.take();
  int refused = 0;
  for (size_t cut = 1; cut < b.size; ++cut) {
    // A cut that falls between two records is a shorter, valid log.
    std::vector<uint8_t> part(b.bytes.get(), b.bytes.get() + cut);
    MachineState st(arch);
    StateApplier a(st, slots);
    if (!BuildEffectLog::replay(part.data(), part.size(), a)) ++refused;
  }
  CHECK(refused > int(b.size) / 2);
  std::vector<uint8_t> bad(b.bytes.get(), b.bytes.get() + b.size);
  bad.push_back(0xEE);  // no such record
  MachineState st(arch);
  StateApplier a(st, slots);
  CHECK_FALSE(BuildEffectLog::replay(bad.data(), bad.size(), a));
}
