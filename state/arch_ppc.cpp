// 32-bit PowerPC register table, laid out as gdb's power-core.xml +
// power-fpu.xml + power-altivec.xml (gdb's powerpc-altivec32 description).
// Big-endian.
#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "state/arch_tables.h"

namespace ttd::detail {

ArchTable build_ppc32() {
  ArchTable t;
  ArchDesc& a = t.desc;
  a.id = ArchId::Ppc32;
  a.name = "ppc32";
  a.gdb_arch = "powerpc:common";
  a.lldb_triple = "powerpc-unknown-linux-gnu";
  a.endian = Endian::Big;
  a.ptr_size = 4;
  a.watch_timing = WatchTiming::BeforeAccess;
  a.uc_arch = UC_ARCH_PPC;
  a.uc_mode = int(unsigned(UC_MODE_PPC32) | unsigned(UC_MODE_BIG_ENDIAN));
  a.cs_arch = CS_ARCH_PPC;
  a.cs_mode = int(unsigned(CS_MODE_32) | unsigned(CS_MODE_BIG_ENDIAN));

  // The fpu feature's f0..f31 take regnums 32..63, between r31 and pc (64),
  // and fpscr comes after xer at 70.
  RegAdder r(a);
  r.feature("org.gnu.gdb.power.core");
  r.seq("r", 0, 32, 32, 0, "uint32", "general", UC_PPC_REG_0, PPC_REG_R0);
  r.feature("org.gnu.gdb.power.fpu");
  r.seq("f", 0, 32, 64, 32, "ieee_double", "float", UC_PPC_REG_FPR0, PPC_REG_F0);
  r.feature("org.gnu.gdb.power.core");
  r.reg("pc", 32, 64, "code_ptr", "general", UC_PPC_REG_PC, -1);
  r.reg("msr", 32, 65, "uint32", "general", UC_PPC_REG_MSR, -1);
  // Capstone only names the eight 4-bit cr fields, not the whole register.
  r.reg("cr", 32, 66, "uint32", "general", UC_PPC_REG_CR, -1);
  r.reg("lr", 32, 67, "code_ptr", "general", UC_PPC_REG_LR, PPC_REG_LR);
  r.reg("ctr", 32, 68, "uint32", "general", UC_PPC_REG_CTR, PPC_REG_CTR);
  r.reg("xer", 32, 69, "uint32", "general", UC_PPC_REG_XER, -1);
  r.feature("org.gnu.gdb.power.fpu");
  r.reg("fpscr", 32, 70, "int", "float", UC_PPC_REG_FPSCR, -1);
  // Unicorn 2.0.1 exposes no AltiVec registers.
  r.feature("org.gnu.gdb.power.altivec");
  r.seq("vr", 0, 32, 128, 71, "vec128", "vector", -1, PPC_REG_V0);
  r.reg("vscr", 32, 103, "int", "vector");
  r.reg("vrsave", 32, 104, "int", "vector", -1, PPC_REG_VRSAVE);

  t.pc_name = "pc";
  t.sp_name = "r1";
  t.aliases = {{"fp", "r31"}, {"ra", "lr"}, {"nip", "pc"}};
  // Unicorn spells the float registers fpr0..fpr31.
  for (int i = 0; i < 32; ++i) t.aliases.push_back({"fpr" + std::to_string(i), "f" + std::to_string(i)});
  return t;
}

}  // namespace ttd::detail
