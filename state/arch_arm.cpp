// AArch64 and 32-bit ARM register tables, laid out as gdb's
// aarch64-core.xml + aarch64-fpu.xml and arm-core.xml + arm-vfpv3.xml.
#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "state/arch_tables.h"

namespace ttd::detail {

ArchTable build_aarch64() {
  ArchTable t;
  ArchDesc& a = t.desc;
  a.id = ArchId::AArch64;
  a.name = "aarch64";
  a.gdb_arch = "aarch64";
  a.lldb_triple = "aarch64-unknown-linux-gnu";
  a.endian = Endian::Little;
  a.ptr_size = 8;
  // gdb expects AArch64 data watchpoints to trigger before the access.
  a.watch_timing = WatchTiming::BeforeAccess;
  a.uc_arch = UC_ARCH_ARM64;
  a.uc_mode = UC_MODE_ARM;
  a.cs_arch = CS_ARCH_ARM64;
  a.cs_mode = CS_MODE_ARM;

  RegAdder r(a);
  r.feature("org.gnu.gdb.aarch64.core");
  // Unicorn and Capstone both number x0..x28 consecutively but put x29 and
  // x30 elsewhere in their enums.
  r.seq("x", 0, 29, 64, 0, "int", "general", UC_ARM64_REG_X0, ARM64_REG_X0);
  r.reg("x29", 64, 29, "int", "general", UC_ARM64_REG_X29, ARM64_REG_X29);
  r.reg("x30", 64, 30, "int", "general", UC_ARM64_REG_X30, ARM64_REG_X30);
  r.reg("sp", 64, 31, "data_ptr", "general", UC_ARM64_REG_SP, ARM64_REG_SP);
  r.reg("pc", 64, 32, "code_ptr", "general", UC_ARM64_REG_PC, -1);
  // gdb's cpsr is the whole PSTATE (flags plus EL/SP/masks); Capstone only
  // knows the NZCV part, which is what instructions read and write.
  r.reg("cpsr", 32, 33, "cpsr_flags", "general", UC_ARM64_REG_PSTATE, ARM64_REG_NZCV);

  r.feature("org.gnu.gdb.aarch64.fpu");
  r.seq("v", 0, 32, 128, 34, "aarch64v", "vector", UC_ARM64_REG_Q0, ARM64_REG_V0);
  r.reg("fpsr", 32, 66, "fpsr_flags", "float", UC_ARM64_REG_FPSR, -1);
  r.reg("fpcr", 32, 67, "fpcr_flags", "float", UC_ARM64_REG_FPCR, -1);

  t.pc_name = "pc";
  t.sp_name = "sp";
  t.aliases = {{"fp", "x29"}, {"lr", "x30"}, {"ra", "x30"}, {"flags", "cpsr"},
               {"nzcv", "cpsr"}, {"pstate", "cpsr"}};
  for (int i = 0; i < 32; ++i) t.aliases.push_back({"q" + std::to_string(i), "v" + std::to_string(i)});
  return t;
}

ArchTable build_arm() {
  ArchTable t;
  ArchDesc& a = t.desc;
  a.id = ArchId::Arm;
  a.name = "arm";
  a.gdb_arch = "arm";
  a.lldb_triple = "arm-unknown-linux-gnueabihf";
  a.endian = Endian::Little;
  a.ptr_size = 4;
  a.watch_timing = WatchTiming::BeforeAccess;
  // ARM state; Thumb code needs UC_MODE_THUMB / CS_MODE_THUMB chosen per
  // instruction from cpsr bit 5 (T) by whoever decodes.
  a.uc_arch = UC_ARCH_ARM;
  a.uc_mode = UC_MODE_ARM;
  a.cs_arch = CS_ARCH_ARM;
  a.cs_mode = CS_MODE_ARM;

  RegAdder r(a);
  r.feature("org.gnu.gdb.arm.core");
  r.seq("r", 0, 13, 32, 0, "uint32", "general", UC_ARM_REG_R0, ARM_REG_R0);
  r.reg("sp", 32, 13, "data_ptr", "general", UC_ARM_REG_SP, ARM_REG_SP);
  r.reg("lr", 32, 14, "int", "general", UC_ARM_REG_LR, ARM_REG_LR);
  r.reg("pc", 32, 15, "code_ptr", "general", UC_ARM_REG_PC, ARM_REG_PC);
  // Regnums 16..24 were the FPA registers f0-f7 and fps; gdb keeps cpsr at
  // 25 so the gap takes no bytes in 'g' but the number stays.
  r.reg("cpsr", 32, 25, "int", "general", UC_ARM_REG_CPSR, ARM_REG_CPSR);

  r.feature("org.gnu.gdb.arm.vfp");
  r.seq("d", 0, 32, 64, 26, "ieee_double", "float", UC_ARM_REG_D0, ARM_REG_D0);
  r.reg("fpscr", 32, 58, "int", "float", UC_ARM_REG_FPSCR, ARM_REG_FPSCR);

  t.pc_name = "pc";
  t.sp_name = "sp";
  t.aliases = {{"r13", "sp"}, {"r14", "lr"}, {"r15", "pc"}, {"fp", "r11"},
               {"ip", "r12"}, {"sb", "r9"},  {"sl", "r10"}, {"ra", "lr"},
               {"flags", "cpsr"}, {"apsr", "cpsr"}};
  return t;
}

}  // namespace ttd::detail
