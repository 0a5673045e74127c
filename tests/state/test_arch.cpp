// Register tables: layout invariants every consumer relies on (index ==
// position in gdb's 'g' packet, offsets cumulative), plus gdb's exact
// numbering for the registers other layers depend on.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "state/arch.h"

using namespace ttd;

TEST_CASE("every table is internally consistent") {
  for (ArchId id : all_arches()) {
    const ArchDesc& a = arch_desc(id);
    CAPTURE(a.name);
    CHECK(a.id == id);
    REQUIRE(!a.regs.empty());
    CHECK(a.regs.size() <= 256);  // RegisterFile's validity bitmap
    CHECK(!a.gdb_arch.empty());
    CHECK(!a.lldb_triple.empty());
    CHECK((a.ptr_size == 4 || a.ptr_size == 8));
    std::set<std::string> names;
    uint32_t off = 0;
    for (size_t i = 0; i < a.regs.size(); ++i) {
      const RegisterDesc& r = a.regs[i];
      CAPTURE(r.name);
      CHECK(names.insert(r.name).second);
      if (i > 0) CHECK(r.gdb_regnum > a.regs[i - 1].gdb_regnum);
      CHECK(r.bits % 8 == 0);
      CHECK(r.bits > 0);
      CHECK(r.offset == off);
      off += r.bytes();
      CHECK(!r.type.empty());
      CHECK(r.feature.rfind("org.gnu.gdb.", 0) == 0);
      CHECK((r.group == "general" || r.group == "float" || r.group == "vector" || r.group == "system"));
      // Names are gdb's: lowercase.
      for (char c : r.name) CHECK_FALSE((c >= 'A' && c <= 'Z'));
      // find() must return the register itself for its own name.
      CHECK(a.find(r.name) == uint16_t(i));
    }
    CHECK(a.file_bytes == off);
    CHECK(a.pc_index < a.regs.size());
    CHECK(a.sp_index < a.regs.size());
    CHECK(a.pc().bits == a.ptr_size * 8);
    CHECK(a.sp().bits == a.ptr_size * 8);
    CHECK(a.find("pc") == a.pc_index);
    CHECK(a.find("sp") == a.sp_index);
    CHECK(a.find("fp").has_value());
    // Same object every time: tables are built once.
    CHECK(&arch_desc(id) == &a);
  }
}

TEST_CASE("x86-64 matches gdb's amd64-linux layout") {
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
  CHECK(a.regs[24].type == "i387_ext");
  CHECK(a.regs[32].name == "fctrl");
  CHECK(a.regs[39].name == "fop");
  CHECK(a.regs[40].name == "xmm0");
  CHECK(a.regs[40].type == "vec128");
  CHECK(a.regs[56].name == "mxcsr");
  CHECK(a.regs[57].name == "orig_rax");
  CHECK(a.regs[57].gdb_regnum == 57);
  CHECK(a.regs[58].name == "fs_base");
  CHECK(a.regs[59].name == "gs_base");
  // 16 gprs + rip (8) + eflags and 6 segments (4) + 8 st (10) + 8 x87
  // control (4) + 16 xmm (16) + mxcsr (4) + orig_rax, fs_base, gs_base (8)
  CHECK(a.file_bytes == 128 + 8 + 4 + 24 + 80 + 32 + 256 + 4 + 8 + 16);
  CHECK(a.regs[16].offset == 128);
  CHECK(a.regs[40].offset == 276);  // as gdb's "maint print remote-registers"
}

TEST_CASE("i386 keeps the encoding order of general registers") {
  const ArchDesc& a = arch_desc(ArchId::I386);
  CHECK(a.regs[1].name == "ecx");
  CHECK(a.regs[3].name == "ebx");
  CHECK(a.pc().name == "eip");
  CHECK(a.pc().gdb_regnum == 8);
  CHECK(a.sp().name == "esp");
  CHECK(a.regs[16].name == "st0");
  CHECK(a.regs[32].name == "xmm0");
  CHECK(a.regs[40].name == "mxcsr");
  CHECK(a.regs[41].name == "orig_eax");
  CHECK(a.ptr_size == 4);
  CHECK(a.file_bytes == 312);
}

TEST_CASE("aarch64 layout") {
  const ArchDesc& a = arch_desc(ArchId::AArch64);
  CHECK(a.gdb_arch == "aarch64");
  CHECK(a.watch_timing == WatchTiming::BeforeAccess);
  REQUIRE(a.regs.size() == 68);
  CHECK(a.sp().name == "sp");
  CHECK(a.sp().gdb_regnum == 31);
  CHECK(a.pc().gdb_regnum == 32);
  CHECK(a.regs[33].name == "cpsr");
  CHECK(a.regs[33].bits == 32);
  CHECK(a.regs[34].name == "v0");
  CHECK(a.regs[34].bits == 128);
  CHECK(a.regs[66].name == "fpsr");
  CHECK(a.regs[67].name == "fpcr");
  CHECK(a.file_bytes == 31 * 8 + 8 + 8 + 4 + 32 * 16 + 4 + 4);
  CHECK(a.find("lr") == a.find("x30"));
  CHECK(a.find("fp") == a.find("x29"));
  CHECK(a.find("Q5") == a.find("v5"));
  CHECK(a.find("nzcv") == a.find("cpsr"));
}

TEST_CASE("arm keeps cpsr at regnum 25 with no bytes for the gap") {
  const ArchDesc& a = arch_desc(ArchId::Arm);
  CHECK(a.gdb_arch == "arm");
  CHECK(a.pc().gdb_regnum == 15);
  CHECK(a.sp().gdb_regnum == 13);
  auto cpsr = a.find("cpsr");
  REQUIRE(cpsr);
  CHECK(*cpsr == 16);  // index right after pc ...
  CHECK(a.regs[*cpsr].gdb_regnum == 25);  // ... but regnum 25
  CHECK(a.regs[*cpsr].offset == 64);  // and no bytes for regnums 16..24
  CHECK(a.regs[17].name == "d0");
  CHECK(a.regs[17].gdb_regnum == 26);
  CHECK(a.find("fpscr").has_value());
  CHECK(a.find("r13") == a.sp_index);
  CHECK(a.find("R15") == a.pc_index);
  CHECK(a.find("fp") == a.find("r11"));
  CHECK(a.find("ip") == a.find("r12"));
}

TEST_CASE("mips is big-endian with gdb's interleaved cpu/cp0 regnums") {
  const ArchDesc& a = arch_desc(ArchId::Mips);
  CHECK(a.endian == Endian::Big);
  CHECK(a.ptr_size == 4);
  CHECK(a.regs[32].name == "status");
  CHECK(a.regs[32].feature == "org.gnu.gdb.mips.cp0");
  CHECK(a.regs[33].name == "lo");
  CHECK(a.regs[34].name == "hi");
  CHECK(a.regs[35].name == "badvaddr");
  CHECK(a.regs[36].name == "cause");
  CHECK(a.pc().gdb_regnum == 37);
  CHECK(a.pc_index == 37);
  CHECK(a.regs[38].name == "f0");
  CHECK(a.regs[70].name == "fcsr");
  CHECK(a.regs[71].name == "fir");
  CHECK(a.sp().name == "r29");
  CHECK(a.find("sp") == uint16_t(29));
  CHECK(a.find("ra") == uint16_t(31));
  CHECK(a.find("zero") == uint16_t(0));
  CHECK(a.find("a0") == uint16_t(4));
  CHECK(a.find("t9") == uint16_t(25));
  CHECK(a.find("fp") == uint16_t(30));
  CHECK(a.find("s8") == uint16_t(30));
}

TEST_CASE("ppc32 is big-endian with pc at regnum 64") {
  const ArchDesc& a = arch_desc(ArchId::Ppc32);
  CHECK(a.gdb_arch == "powerpc:common");
  CHECK(a.endian == Endian::Big);
  CHECK(a.regs[32].name == "f0");
  CHECK(a.regs[32].bits == 64);
  CHECK(a.pc().gdb_regnum == 64);
  CHECK(a.pc_index == 64);
  CHECK(a.regs[65].name == "msr");
  CHECK(a.regs[66].name == "cr");
  CHECK(a.regs[67].name == "lr");
  CHECK(a.regs[68].name == "ctr");
  CHECK(a.regs[69].name == "xer");
  CHECK(a.regs[70].name == "fpscr");
  CHECK(a.regs[71].name == "vr0");
  CHECK(a.regs[71].gdb_regnum == 71);
  CHECK(a.regs[104].name == "vrsave");
  CHECK(a.sp().name == "r1");
  CHECK(a.find("fpr3") == a.find("f3"));
  CHECK(a.regs[a.pc_index].offset == 32 * 4 + 32 * 8);
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
  CHECK_FALSE(a.find("ra"));  // x86 has no link register
  const ArchDesc& i386 = arch_desc(ArchId::I386);
  CHECK(i386.find("eflags") == uint16_t(9));
  CHECK(i386.find("fp") == i386.find("ebp"));
}

TEST_CASE("find works on a copied description") {
  ArchDesc copy = arch_desc(ArchId::X86_64);
  CHECK(copy.find("pc") == copy.pc_index);
  CHECK(copy.find("FP") == copy.find("rbp"));
  CHECK(copy.find("xmm15") == uint16_t(55));
  // A trimmed copy resolves aliases against its own layout.
  copy.regs.erase(copy.regs.begin());  // drop rax
  CHECK(copy.find("rbx") == uint16_t(0));
  CHECK(copy.find("fp") == uint16_t(5));
  CHECK_FALSE(copy.find("rax"));
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
  CHECK_FALSE(arch_from_name("x86_64 "));
  // Every canonical name round-trips.
  for (ArchId id : all_arches()) CHECK(arch_from_name(arch_desc(id).name) == id);
  CHECK(all_arches().size() == 6);
}
