// x86-64 and i386 register tables, laid out exactly as gdb's standard
// target descriptions (i386/64bit-core + 64bit-sse + 64bit-linux +
// 64bit-segments, and i386/32bit-core + 32bit-sse + 32bit-linux), so that
// our 'g' packet is byte-for-byte what gdb expects and register numbers
// line up with what gdb prints in "maint print registers".
#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "state/arch_tables.h"

namespace ttd::detail {

namespace {

// x87 control registers, in gdb's order, with the Unicorn register that
// holds each (gdb's fiseg/fioff = instruction pointer selector/offset, that
// is Unicorn's FCS/FIP; foseg/fooff = operand pointer, FDS/FDP). Capstone
// only names the status word.
void add_x87_control(RegAdder& r, uint16_t regnum) {
  struct Ctl { const char* name; int uc; int cs; };
  static const Ctl ctl[] = {
      {"fctrl", UC_X86_REG_FPCW, -1},  {"fstat", UC_X86_REG_FPSW, X86_REG_FPSW},
      {"ftag", UC_X86_REG_FPTAG, -1},  {"fiseg", UC_X86_REG_FCS, -1},
      {"fioff", UC_X86_REG_FIP, -1},   {"foseg", UC_X86_REG_FDS, -1},
      {"fooff", UC_X86_REG_FDP, -1},   {"fop", UC_X86_REG_FOP, -1},
  };
  for (const Ctl& c : ctl) r.reg(c.name, 32, regnum++, "int", "float", c.uc, c.cs);
}

// Names traces and users commonly use for x87 control registers (Unicorn's
// spelling) mapped to gdb's.
void add_x87_aliases(ArchTable& t) {
  t.aliases.insert(t.aliases.end(), {{"fpcw", "fctrl"}, {"fpsw", "fstat"}, {"fptag", "ftag"},
                                     {"fcs", "fiseg"}, {"fip", "fioff"}, {"fds", "foseg"},
                                     {"fdp", "fooff"}});
}

}  // namespace

ArchTable build_x86_64() {
  ArchTable t;
  ArchDesc& a = t.desc;
  a.id = ArchId::X86_64;
  a.name = "x86_64";
  a.gdb_arch = "i386:x86-64";
  a.lldb_triple = "x86_64-unknown-linux-gnu";
  a.endian = Endian::Little;
  a.ptr_size = 8;
  a.watch_timing = WatchTiming::AfterAccess;
  a.uc_arch = UC_ARCH_X86;
  a.uc_mode = UC_MODE_64;
  a.cs_arch = CS_ARCH_X86;
  a.cs_mode = CS_MODE_64;

  RegAdder r(a);
  r.feature("org.gnu.gdb.i386.core");
  // gdb's amd64 order is rax rbx rcx rdx rsi rdi rbp rsp (not the encoding
  // order rax rcx rdx rbx ...).
  r.reg("rax", 64, 0, "int64", "general", UC_X86_REG_RAX, X86_REG_RAX);
  r.reg("rbx", 64, 1, "int64", "general", UC_X86_REG_RBX, X86_REG_RBX);
  r.reg("rcx", 64, 2, "int64", "general", UC_X86_REG_RCX, X86_REG_RCX);
  r.reg("rdx", 64, 3, "int64", "general", UC_X86_REG_RDX, X86_REG_RDX);
  r.reg("rsi", 64, 4, "int64", "general", UC_X86_REG_RSI, X86_REG_RSI);
  r.reg("rdi", 64, 5, "int64", "general", UC_X86_REG_RDI, X86_REG_RDI);
  r.reg("rbp", 64, 6, "data_ptr", "general", UC_X86_REG_RBP, X86_REG_RBP);
  r.reg("rsp", 64, 7, "data_ptr", "general", UC_X86_REG_RSP, X86_REG_RSP);
  r.seq("r", 8, 8, 64, 8, "int64", "general", UC_X86_REG_R8, X86_REG_R8);
  r.reg("rip", 64, 16, "code_ptr", "general", UC_X86_REG_RIP, X86_REG_RIP);
  r.reg("eflags", 32, 17, "i386_eflags", "general", UC_X86_REG_EFLAGS, X86_REG_EFLAGS);
  r.reg("cs", 32, 18, "int32", "general", UC_X86_REG_CS, X86_REG_CS);
  r.reg("ss", 32, 19, "int32", "general", UC_X86_REG_SS, X86_REG_SS);
  r.reg("ds", 32, 20, "int32", "general", UC_X86_REG_DS, X86_REG_DS);
  r.reg("es", 32, 21, "int32", "general", UC_X86_REG_ES, X86_REG_ES);
  r.reg("fs", 32, 22, "int32", "general", UC_X86_REG_FS, X86_REG_FS);
  r.reg("gs", 32, 23, "int32", "general", UC_X86_REG_GS, X86_REG_GS);
  // st0..st7 are stack-relative (ST(i)), which is Unicorn's ST0.., not FP0..
  r.seq("st", 0, 8, 80, 24, "i387_ext", "float", UC_X86_REG_ST0, X86_REG_ST0);
  add_x87_control(r, 32);

  r.feature("org.gnu.gdb.i386.sse");
  r.seq("xmm", 0, 16, 128, 40, "vec128", "vector", UC_X86_REG_XMM0, X86_REG_XMM0);
  r.reg("mxcsr", 32, 56, "i386_mxcsr", "vector", UC_X86_REG_MXCSR, -1);

  // orig_rax is what the kernel uses to restart syscalls; traces rarely know
  // it, but gdb's linux target expects the slot.
  r.feature("org.gnu.gdb.i386.linux");
  r.reg("orig_rax", 64, 57, "int", "system");

  r.feature("org.gnu.gdb.i386.segments");
  r.reg("fs_base", 64, 58, "int", "system", UC_X86_REG_FS_BASE, -1);
  r.reg("gs_base", 64, 59, "int", "system", UC_X86_REG_GS_BASE, -1);

  t.pc_name = "rip";
  t.sp_name = "rsp";
  t.aliases = {{"fp", "rbp"}, {"flags", "eflags"}, {"rflags", "eflags"}};
  add_x87_aliases(t);
  return t;
}

ArchTable build_i386() {
  ArchTable t;
  ArchDesc& a = t.desc;
  a.id = ArchId::I386;
  a.name = "i386";
  a.gdb_arch = "i386";
  a.lldb_triple = "i386-unknown-linux-gnu";
  a.endian = Endian::Little;
  a.ptr_size = 4;
  a.watch_timing = WatchTiming::AfterAccess;
  a.uc_arch = UC_ARCH_X86;
  a.uc_mode = UC_MODE_32;
  a.cs_arch = CS_ARCH_X86;
  a.cs_mode = CS_MODE_32;

  RegAdder r(a);
  r.feature("org.gnu.gdb.i386.core");
  // i386 keeps the hardware encoding order eax ecx edx ebx esp ebp esi edi.
  r.reg("eax", 32, 0, "int32", "general", UC_X86_REG_EAX, X86_REG_EAX);
  r.reg("ecx", 32, 1, "int32", "general", UC_X86_REG_ECX, X86_REG_ECX);
  r.reg("edx", 32, 2, "int32", "general", UC_X86_REG_EDX, X86_REG_EDX);
  r.reg("ebx", 32, 3, "int32", "general", UC_X86_REG_EBX, X86_REG_EBX);
  r.reg("esp", 32, 4, "data_ptr", "general", UC_X86_REG_ESP, X86_REG_ESP);
  r.reg("ebp", 32, 5, "data_ptr", "general", UC_X86_REG_EBP, X86_REG_EBP);
  r.reg("esi", 32, 6, "int32", "general", UC_X86_REG_ESI, X86_REG_ESI);
  r.reg("edi", 32, 7, "int32", "general", UC_X86_REG_EDI, X86_REG_EDI);
  r.reg("eip", 32, 8, "code_ptr", "general", UC_X86_REG_EIP, X86_REG_EIP);
  r.reg("eflags", 32, 9, "i386_eflags", "general", UC_X86_REG_EFLAGS, X86_REG_EFLAGS);
  r.reg("cs", 32, 10, "int32", "general", UC_X86_REG_CS, X86_REG_CS);
  r.reg("ss", 32, 11, "int32", "general", UC_X86_REG_SS, X86_REG_SS);
  r.reg("ds", 32, 12, "int32", "general", UC_X86_REG_DS, X86_REG_DS);
  r.reg("es", 32, 13, "int32", "general", UC_X86_REG_ES, X86_REG_ES);
  r.reg("fs", 32, 14, "int32", "general", UC_X86_REG_FS, X86_REG_FS);
  r.reg("gs", 32, 15, "int32", "general", UC_X86_REG_GS, X86_REG_GS);
  r.seq("st", 0, 8, 80, 16, "i387_ext", "float", UC_X86_REG_ST0, X86_REG_ST0);
  add_x87_control(r, 24);

  r.feature("org.gnu.gdb.i386.sse");
  r.seq("xmm", 0, 8, 128, 32, "vec128", "vector", UC_X86_REG_XMM0, X86_REG_XMM0);
  r.reg("mxcsr", 32, 40, "i386_mxcsr", "vector", UC_X86_REG_MXCSR, -1);

  r.feature("org.gnu.gdb.i386.linux");
  r.reg("orig_eax", 32, 41, "int", "system");

  t.pc_name = "eip";
  t.sp_name = "esp";
  t.aliases = {{"fp", "ebp"}, {"flags", "eflags"}};
  add_x87_aliases(t);
  return t;
}

}  // namespace ttd::detail
