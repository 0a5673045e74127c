// 32-bit MIPS register table, laid out as gdb's mips-cpu.xml + mips-cp0.xml
// + mips-fpu.xml (the three features gdb requires for a MIPS target
// description). Big-endian: the usual Linux "mips" (mipsel traces must be
// byte-swapped by their reader, or get their own table later).
#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "state/arch_tables.h"

namespace ttd::detail {

ArchTable build_mips() {
  ArchTable t;
  ArchDesc& a = t.desc;
  a.id = ArchId::Mips;
  a.name = "mips";
  a.gdb_arch = "mips";
  a.lldb_triple = "mips-unknown-linux-gnu";
  a.endian = Endian::Big;
  a.ptr_size = 4;
  a.watch_timing = WatchTiming::BeforeAccess;
  a.uc_arch = UC_ARCH_MIPS;
  a.uc_mode = int(unsigned(UC_MODE_MIPS32) | unsigned(UC_MODE_BIG_ENDIAN));
  a.cs_arch = CS_ARCH_MIPS;
  a.cs_mode = int(unsigned(CS_MODE_MIPS32) | unsigned(CS_MODE_BIG_ENDIAN));

  // gdb interleaves the features' regnums: status (cp0) is 32, lo/hi (cpu)
  // 33/34, badvaddr/cause (cp0) 35/36, pc (cpu) 37. regs stays in regnum
  // order; target_xml groups by feature with explicit regnums.
  RegAdder r(a);
  r.feature("org.gnu.gdb.mips.cpu");
  r.seq("r", 0, 32, 32, 0, "int", "general", UC_MIPS_REG_0, MIPS_REG_0);
  r.feature("org.gnu.gdb.mips.cp0");
  r.reg("status", 32, 32, "int", "system", UC_MIPS_REG_CP0_STATUS, -1);
  r.feature("org.gnu.gdb.mips.cpu");
  r.reg("lo", 32, 33, "int", "general", UC_MIPS_REG_LO, MIPS_REG_LO);
  r.reg("hi", 32, 34, "int", "general", UC_MIPS_REG_HI, MIPS_REG_HI);
  r.feature("org.gnu.gdb.mips.cp0");
  r.reg("badvaddr", 32, 35, "int", "system");
  r.reg("cause", 32, 36, "int", "system");
  r.feature("org.gnu.gdb.mips.cpu");
  r.reg("pc", 32, 37, "code_ptr", "general", UC_MIPS_REG_PC, MIPS_REG_PC);
  r.feature("org.gnu.gdb.mips.fpu");
  r.seq("f", 0, 32, 32, 38, "ieee_single", "float", UC_MIPS_REG_F0, MIPS_REG_F0);
  r.reg("fcsr", 32, 70, "int", "float");
  r.reg("fir", 32, 71, "int", "float");

  t.pc_name = "pc";
  t.sp_name = "r29";
  // o32 ABI names, which traces and users use as often as rN.
  static const char* const abi[32] = {
      "zero", "at", "v0", "v1", "a0", "a1", "a2", "a3", "t0", "t1", "t2",
      "t3",   "t4", "t5", "t6", "t7", "s0", "s1", "s2", "s3", "s4", "s5",
      "s6",   "s7", "t8", "t9", "k0", "k1", "gp", "sp", "fp", "ra"};
  for (int i = 0; i < 32; ++i) t.aliases.push_back({abi[i], "r" + std::to_string(i)});
  t.aliases.push_back({"s8", "r30"});
  t.aliases.push_back({"sr", "status"});
  t.aliases.push_back({"fsr", "fcsr"});
  return t;
}

}  // namespace ttd::detail
