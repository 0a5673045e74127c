// MachineState digest (equal states hash equal however they were reached;
// any byte or validity difference changes it) and MemoryRegions splitting.
#include <doctest/doctest.h>

#include "state/machine_state.h"

using namespace ttd;

namespace {
const ArchDesc& x64() { return arch_desc(ArchId::X86_64); }
}  // namespace

TEST_CASE("equal states reached differently have equal digests") {
  MachineState a(x64()), b(x64());
  // a: write, overwrite, map in one go.
  auto& ta = a.thread(1, 100);
  ta.regs.set_u64(0, 5);
  ta.regs.set_u64(0, 7);
  const uint8_t d1[] = {1, 2, 3, 4};
  a.process(100).memory.write(0x1000, d1, 4);
  a.process(100).regions.map({0x1000, 0x2000, kProtRead | kProtWrite, "heap"});
  // b: other order, temporary extra bytes later invalidated, region mapped in
  // two pieces then remapped whole.
  b.process(100).regions.map({0x1000, 0x1000, kProtRead, "heap"});
  b.process(100).regions.map({0x2000, 0x1000, kProtRead, "heap"});
  b.process(100).regions.map({0x1000, 0x2000, kProtRead | kProtWrite, "heap"});
  const uint8_t junk[] = {9, 9, 9, 9, 9, 9};
  b.process(100).memory.write(0xfff, junk, 6);
  b.process(100).memory.invalidate(0xfff, 6);
  b.process(100).memory.write(0x1000, d1, 4);
  auto& tb = b.thread(1, 100);
  tb.regs.set_u64(0, 7);
  CHECK(a.digest() == b.digest());

  // A page that became entirely unknown is the same as no page.
  const uint8_t z = 0;
  b.process(100).memory.write(0x9000, &z, 1);
  CHECK(a.digest() != b.digest());
  b.process(100).memory.invalidate(0x9000, 1);
  CHECK(a.digest() == b.digest());
}

TEST_CASE("digest changes with one byte, one validity bit, or one register") {
  MachineState base(x64());
  base.thread(1, 1).regs.set_u64(x64().pc_index, 0x401000);
  const uint8_t d[] = {1, 2, 3};
  base.process(1).memory.write(0x5000, d, 3);
  uint64_t h = base.digest();

  MachineState byte = base;
  const uint8_t other = 9;
  byte.process(1).memory.write(0x5001, &other, 1);
  CHECK(byte.digest() != h);

  MachineState known_zero = base;
  const uint8_t zero = 0;
  known_zero.process(1).memory.write(0x5003, &zero, 1);  // unknown -> known 0
  CHECK(known_zero.digest() != h);

  MachineState reg = base;
  reg.thread(1, 1).regs.set_u64(0, 0);  // unknown -> known 0
  CHECK(reg.digest() != h);

  MachineState reg_invalid = base;
  reg_invalid.thread(1, 1).regs.invalidate(x64().pc_index);
  CHECK(reg_invalid.digest() != h);

  MachineState thread = base;
  thread.thread(2, 1);
  CHECK(thread.digest() != h);

  MachineState region = base;
  region.process(1).regions.map({0x5000, 0x1000, kProtRead, "x"});
  CHECK(region.digest() != h);

  // And the copies did not disturb the original (copy-on-write pages).
  CHECK(base.digest() == h);
}

TEST_CASE("digest differs between architectures with the same bytes") {
  MachineState a(arch_desc(ArchId::X86_64)), b(arch_desc(ArchId::I386));
  CHECK(a.digest() != b.digest());
}

TEST_CASE("threads and processes") {
  MachineState s(x64());
  auto& t = s.thread(7, 3);
  CHECK(t.tid == 7);
  CHECK(t.pid == 3);
  CHECK(t.alive);
  CHECK(s.find_process(3) != nullptr);  // created with its first thread
  CHECK(s.find_thread(7) == &t);
  CHECK(s.find_thread(8) == nullptr);
  CHECK(&s.thread(7, 3) == &t);  // not re-created
  CHECK_FALSE(t.regs.valid(0));
}

TEST_CASE("MemoryRegions: map replaces overlapped parts, unmap splits") {
  MemoryRegions r;
  r.map({0x1000, 0x4000, kProtRead, "a"});  // [0x1000, 0x5000)
  r.unmap(0x2000, 0x1000);                   // hole at [0x2000, 0x3000)
  REQUIRE(r.all().size() == 2);
  CHECK(r.find(0x1fff)->name == "a");
  CHECK(r.find(0x2000) == nullptr);
  CHECK(r.find(0x3000)->start == 0x3000);
  CHECK(r.find(0x3000)->size == 0x2000);
  CHECK(r.next_after(0x2000)->start == 0x3000);
  CHECK(r.next_after(0x3000) == nullptr);

  r.map({0x1800, 0x2000, kProtRead | kProtWrite, "b"});  // [0x1800, 0x3800)
  REQUIRE(r.all().size() == 3);
  CHECK(r.find(0x1000)->size == 0x800);
  CHECK(r.find(0x1800)->name == "b");
  CHECK(r.find(0x37ff)->name == "b");
  CHECK(r.find(0x3800)->name == "a");
  CHECK(r.find(0x3800)->start == 0x3800);
  CHECK(r.find(0x3800)->size == 0x1800);

  r.unmap(0, 0x10000);
  CHECK(r.all().empty());
}

TEST_CASE("MemoryRegions: unmap in the middle of one region and at the end") {
  MemoryRegions r;
  r.map({0x10000, 0x10000, kProtRead | kProtExec, "text"});
  r.unmap(0x14000, 0x1000);
  r.unmap(0x1f000, 0x5000);  // runs past the end
  REQUIRE(r.all().size() == 2);
  CHECK(r.find(0x13fff)->start == 0x10000);
  CHECK(r.find(0x15000)->size == 0xa000);
  CHECK(r.find(0x1f000) == nullptr);
  // Unmapping to the top of the address space does not wrap.
  r.map({~0ull - 0xfff, 0x1000, kProtRead, "top"});
  r.unmap(~0ull - 0x7ff, 0x800);
  CHECK(r.find(~0ull - 0x800)->name == "top");
  CHECK(r.find(~0ull) == nullptr);
}

TEST_CASE("MemoryRegions: protect splits and keeps names") {
  MemoryRegions r;
  r.map({0x1000, 0x3000, kProtRead | kProtWrite, "data"});
  r.protect(0x2000, 0x1000, kProtRead);
  REQUIRE(r.all().size() == 3);
  CHECK(r.find(0x1000)->prot == (kProtRead | kProtWrite));
  CHECK(r.find(0x2000)->prot == kProtRead);
  CHECK(r.find(0x2000)->name == "data");
  CHECK(r.find(0x3000)->prot == (kProtRead | kProtWrite));
  MemoryRegions same;
  same.map({0x1000, 0x1000, kProtRead | kProtWrite, "data"});
  same.map({0x2000, 0x1000, kProtRead, "data"});
  same.map({0x3000, 0x1000, kProtRead | kProtWrite, "data"});
  CHECK(r == same);
}

TEST_CASE("MemoryRegions: zero-size operations change nothing") {
  MemoryRegions r;
  r.map({0x1000, 0x2000, kProtRead, "a"});
  r.unmap(0x1800, 0);
  r.protect(0x1800, 0, kProtWrite);
  r.map({0x1800, 0, kProtWrite, "b"});
  REQUIRE(r.all().size() == 1);
  CHECK(r.find(0x1800)->size == 0x2000);
}

TEST_CASE("MemoryRegions: a region ending at 2^64 can be split and protected") {
  MemoryRegions r;
  r.map({~0ull - 0x1fff, 0x2000, kProtRead, "top"});
  r.protect(~0ull - 0xfff, 0x1000, kProtRead | kProtWrite);
  REQUIRE(r.all().size() == 2);
  CHECK(r.find(~0ull)->prot == (kProtRead | kProtWrite));
  CHECK(r.find(~0ull)->size == 0x1000);
  CHECK(r.find(~0ull - 0x1000)->prot == kProtRead);
  // A mapping that would run past the top is clamped, not wrapped.
  r.map({~0ull - 0xff, 0x1000, kProtExec, "clamped"});
  CHECK(r.find(~0ull)->name == "clamped");
  CHECK(r.find(~0ull)->size == 0x100);
  CHECK(r.find(0) == nullptr);
}
