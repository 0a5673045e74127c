// RegisterFile: bytes in target order (the 'g' packet), validity per
// register, unknown is never zero-but-valid.
#include <doctest/doctest.h>

#include <vector>

#include "state/register_file.h"

using namespace ttd;

TEST_CASE("a fresh register file knows nothing") {
  for (ArchId id : all_arches()) {
    RegisterFile rf(arch_desc(id));
    CHECK(rf.all_bytes().size() == arch_desc(id).file_bytes);
    for (uint16_t r = 0; r < arch_desc(id).regs.size(); ++r) {
      CHECK_FALSE(rf.valid(r));
      CHECK_FALSE(rf.get_u64(r).has_value());
    }
  }
}

TEST_CASE("little-endian set/get and byte placement") {
  const ArchDesc& a = arch_desc(ArchId::X86_64);
  RegisterFile rf(a);
  uint16_t rip = a.pc_index;
  rf.set_u64(rip, 0x401000);
  CHECK(rf.valid(rip));
  CHECK(rf.get_u64(rip) == 0x401000u);
  auto b = rf.bytes(rip);
  REQUIRE(b.size() == 8);
  CHECK(b[0] == 0x00);
  CHECK(b[1] == 0x10);
  CHECK(b[2] == 0x40);
  CHECK(b[7] == 0x00);
  // It lands at the register's offset in the whole file ('g' layout).
  CHECK(rf.all_bytes()[a.regs[rip].offset + 1] == 0x10);
  // Neighbours untouched and still unknown.
  CHECK_FALSE(rf.valid(rip - 1));
  CHECK_FALSE(rf.valid(rip + 1));
}

TEST_CASE("set_u64 truncates to the register size") {
  const ArchDesc& a = arch_desc(ArchId::X86_64);
  RegisterFile rf(a);
  uint16_t ef = *a.find("eflags");
  rf.set_u64(ef, 0x1122334455667788ull);
  CHECK(rf.get_u64(ef) == 0x55667788u);
}

TEST_CASE("big-endian registers store the most significant byte first") {
  const ArchDesc& a = arch_desc(ArchId::Mips);
  RegisterFile rf(a);
  uint16_t pc = a.pc_index;
  rf.set_u64(pc, 0x00400120);
  auto b = rf.bytes(pc);
  REQUIRE(b.size() == 4);
  CHECK(b[0] == 0x00);
  CHECK(b[1] == 0x40);
  CHECK(b[2] == 0x01);
  CHECK(b[3] == 0x20);
  CHECK(rf.get_u64(pc) == 0x00400120u);

  const ArchDesc& p = arch_desc(ArchId::Ppc32);
  RegisterFile pf(p);
  uint16_t f0 = *p.find("f0");
  pf.set_u64(f0, 0x3ff0000000000000ull);  // 1.0
  CHECK(pf.bytes(f0)[0] == 0x3f);
  CHECK(pf.bytes(f0)[1] == 0xf0);
  CHECK(pf.get_u64(f0) == 0x3ff0000000000000ull);
}

TEST_CASE("set_bytes zero-extends short values on the high side") {
  const ArchDesc& le = arch_desc(ArchId::X86_64);
  RegisterFile rf(le);
  const uint8_t two[] = {0x34, 0x12};
  rf.set_bytes(0, two);
  CHECK(rf.get_u64(0) == 0x1234u);

  const ArchDesc& be = arch_desc(ArchId::Ppc32);
  RegisterFile bf(be);
  const uint8_t bes[] = {0x12, 0x34};  // big-endian 0x1234
  bf.set_bytes(3, bes);
  CHECK(bf.get_u64(3) == 0x1234u);
  CHECK(bf.bytes(3)[0] == 0);
  CHECK(bf.bytes(3)[3] == 0x34);
}

TEST_CASE("set_bytes cuts long values") {
  const ArchDesc& le = arch_desc(ArchId::X86_64);
  RegisterFile rf(le);
  const uint8_t nine[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  rf.set_bytes(0, nine);
  CHECK(rf.get_u64(0) == 0x0807060504030201ull);
  // Big-endian keeps the low-order (rightmost) bytes.
  const ArchDesc& be = arch_desc(ArchId::Mips);
  RegisterFile bf(be);
  const uint8_t six[] = {0xaa, 0xbb, 0x11, 0x22, 0x33, 0x44};
  bf.set_bytes(1, six);
  CHECK(bf.get_u64(1) == 0x11223344u);
}

TEST_CASE("wide registers: st0 and xmm keep all their bytes") {
  const ArchDesc& a = arch_desc(ArchId::X86_64);
  RegisterFile rf(a);
  uint16_t st0 = *a.find("st0"), xmm1 = *a.find("xmm1");
  std::vector<uint8_t> v10(10), v16(16);
  for (int i = 0; i < 10; ++i) v10[i] = uint8_t(0xa0 + i);
  for (int i = 0; i < 16; ++i) v16[i] = uint8_t(i + 1);
  rf.set_bytes(st0, v10);
  rf.set_bytes(xmm1, v16);
  auto s = rf.bytes(st0);
  CHECK(std::vector<uint8_t>(s.begin(), s.end()) == v10);
  auto x = rf.bytes(xmm1);
  CHECK(std::vector<uint8_t>(x.begin(), x.end()) == v16);
  CHECK(rf.get_u64(xmm1) == 0x0807060504030201ull);  // low 64 bits
}

TEST_CASE("invalidate makes a register unknown and zeroes it") {
  const ArchDesc& a = arch_desc(ArchId::AArch64);
  RegisterFile rf(a);
  rf.set_u64(5, 77);
  rf.set_u64(6, 88);
  rf.invalidate(5);
  CHECK_FALSE(rf.valid(5));
  CHECK_FALSE(rf.get_u64(5));
  CHECK(rf.bytes(5)[0] == 0);
  CHECK(rf.get_u64(6) == 88u);
  rf.invalidate_all();
  CHECK_FALSE(rf.valid(6));
}

TEST_CASE("validity bits beyond 64 registers") {
  const ArchDesc& a = arch_desc(ArchId::Ppc32);  // 105 registers
  RegisterFile rf(a);
  uint16_t last = uint16_t(a.regs.size() - 1);
  rf.set_u64(last, 1);
  CHECK(rf.valid(last));
  CHECK_FALSE(rf.valid(uint16_t(last - 64)));
  CHECK_FALSE(rf.valid(uint16_t(last - 1)));
}

TEST_CASE("equality compares bytes and validity") {
  const ArchDesc& a = arch_desc(ArchId::X86_64);
  RegisterFile x(a), y(a);
  CHECK(x == y);
  x.set_u64(0, 0);
  CHECK_FALSE(x == y);  // known zero != unknown
  y.set_u64(0, 0);
  CHECK(x == y);
  y.set_u64(1, 5);
  x.set_u64(1, 6);
  CHECK_FALSE(x == y);
  RegisterFile other(arch_desc(ArchId::I386));
  CHECK_FALSE(other == RegisterFile(arch_desc(ArchId::X86_64)));
}

TEST_CASE("set_bytes of a full-width 4- or 8-byte value writes exactly the register's bytes") {
  // The inline path copies a fixed 8 or 4 bytes; the neighbours in the
  // whole file ('g' layout) must stay as they were.
  for (ArchId id : {ArchId::X86_64, ArchId::I386, ArchId::Arm}) {
    const ArchDesc& a = arch_desc(id);
    RegisterFile rf(a);
    for (uint16_t r = 0; r < a.regs.size(); ++r)
      if (a.regs[r].bytes() == 4 || a.regs[r].bytes() == 8) {
        std::vector<uint8_t> v(a.regs[r].bytes());
        for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t(0x11 * (i + 1) + r);
        const std::vector<uint8_t> before(rf.all_bytes().begin(), rf.all_bytes().end());
        rf.set_bytes(r, v);
        CHECK(rf.valid(r));
        const auto b = rf.bytes(r);
        CHECK(std::vector<uint8_t>(b.begin(), b.end()) == v);
        const auto all = rf.all_bytes();
        for (size_t i = 0; i < all.size(); ++i)
          if (i < a.regs[r].offset || i >= a.regs[r].offset + v.size()) CHECK(all[i] == before[i]);
      }
  }
}
