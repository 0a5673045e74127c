// Register tables: layout invariants every consumer relies on (index ==
// position in gdb's 'g' packet, offsets cumulative), plus the exact gdb
// numbering for the registers other layers hard-depend on.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "state/arch.h"

using namespace ttd;

TEST_CASE("x86-64 table matches gdb's amd64-linux layout") {
  const ArchDesc& a = arch_desc(ArchId::X86_64);
  CHECK(a.name == "x86_64");
  CHECK(a.gdb_arch == "i386:x86-64");
  CHECK(a.ptr_size == 8);
  CHECK(a.endian == Endian::Little);
  CHECK(a.watch_timing == WatchTiming::AfterAccess);
  REQUIRE(a.regs.size() == 60);
  CHECK(a.regs[0].name == "rax");
  CHECK(a.regs[1].name == "rbx");
  CHECK(a.regs[7].name == "rsp");
  CHECK(a.pc().name == "rip");
  CHECK(a.pc().gdb_regnum == 16);
  CHECK(a.sp().name == "rsp");
  CHECK(a.regs[17].name == "eflags");
  CHECK(a.regs[17].bits == 32);
  CHECK(a.regs[24].name == "st0");
  CHECK(a.regs[24].bits == 80);
  CHECK(a.regs[40].name == "xmm0");
  CHECK(a.regs[56].name == "mxcsr");
  CHECK(a.regs[57].name == "orig_rax");
  CHECK(a.regs[59].name == "gs_base");
  // 16*8 gprs + rip + eflags(4) + 6 segs(4) + 8 st(10) + 8 ctl(4) + 16 xmm + mxcsr + orig_rax + 2 bases
  CHECK(a.file_bytes == 128 + 8 + 4 + 24 + 80 + 32 + 256 + 4 + 8 + 16);
  CHECK(a.regs[16].offset == 128);
}

TEST_CASE("i386 keeps the encoding order of general registers") {
  const ArchDesc& a = arch_desc(ArchId::I386);
  CHECK(a.regs[1].name == "ecx");
  CHECK(a.regs[3].name == "ebx");
  CHECK(a.pc().name == "eip");
  CHECK(a.pc().gdb_regnum == 8);
  CHECK(a.sp().name == "esp");
  CHECK(a.regs[32].name == "xmm0");
  CHECK(a.regs[40].name == "mxcsr");
  CHECK(a.regs[41].name == "orig_eax");
  CHECK(a.ptr_size == 4);
}

TEST_CASE("find is case-insensitive and knows aliases") {
  const ArchDesc& a = arch_desc(ArchId::X86_64);
  CHECK(a.find("rax") == uint16_t(0));
  CHECK(a.find("RAX") == uint16_t(0));
  CHECK(a.find("Rip") == a.pc_index);
  CHECK(a.find("pc") == a.pc_index);
  CHECK(a.find("PC") == a.pc_index);
  CHECK(a.find("sp") == a.sp_index);
  CHECK(a.find("fp") == a.find("rbp"));
  CHECK(a.find("flags") == a.find("eflags"));
  CHECK(a.find("rflags") == a.find("eflags"));
  CHECK(a.find("fpcw") == a.find("fctrl"));
  CHECK_FALSE(a.find("nosuchreg"));
  CHECK_FALSE(a.find(""));
}

TEST_CASE("find works on a copied description") {
  ArchDesc copy = arch_desc(ArchId::X86_64);
  CHECK(copy.find("pc") == copy.pc_index);
  CHECK(copy.find("FP") == copy.find("rbp"));
  CHECK(copy.find("xmm15") == uint16_t(55));
}

TEST_CASE("arch_from_name") {
  CHECK(arch_from_name("x86_64") == ArchId::X86_64);
  CHECK(arch_from_name("x86-64") == ArchId::X86_64);
  CHECK(arch_from_name("AMD64") == ArchId::X86_64);
  CHECK(arch_from_name("i386") == ArchId::I386);
  CHECK(arch_from_name("x86") == ArchId::I386);
  CHECK(arch_from_name("i686") == ArchId::I386);
  CHECK(arch_from_name("aarch64") == ArchId::AArch64);
  CHECK(arch_from_name("arm64") == ArchId::AArch64);
  CHECK(arch_from_name("arm") == ArchId::Arm);
  CHECK(arch_from_name("armv7") == ArchId::Arm);
  CHECK(arch_from_name("mips") == ArchId::Mips);
  CHECK(arch_from_name("mipsel") == ArchId::Mips);
  CHECK(arch_from_name("ppc") == ArchId::Ppc32);
  CHECK(arch_from_name("ppc32") == ArchId::Ppc32);
  CHECK(arch_from_name("PowerPC") == ArchId::Ppc32);
  CHECK_FALSE(arch_from_name("sparc"));
  CHECK_FALSE(arch_from_name(""));
  CHECK(all_arches().size() == 6);
}
