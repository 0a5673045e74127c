#include "debuginfo/dwarf_registers.h"

#include <elf.h>

namespace ttd::dbg {

namespace {
DwarfRegisterSet make_x86_64() {
  DwarfRegisterSet s;
  s.names = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"};
  s.sp = 7;
  s.fp = 6;
  s.return_address = 16;
  s.pc = 16;
  s.ptr_size = 8;
  return s;
}
DwarfRegisterSet make_i386() {
  DwarfRegisterSet s;
  s.names = {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip"};
  s.sp = 4;
  s.fp = 5;
  s.return_address = 8;
  s.pc = 8;
  s.ptr_size = 4;
  return s;
}
DwarfRegisterSet make_aarch64() {
  static const char* const x[] = {"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",  "x9",  "x10",
                                  "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21",
                                  "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30", "sp"};
  DwarfRegisterSet s;
  for (const char* n : x) s.names.push_back(n);
  s.sp = 31;
  s.fp = 29;
  s.return_address = 30;
  s.pc = -1;  // aarch64 has no DWARF number for pc; frames carry it separately
  s.ptr_size = 8;
  return s;
}
}  // namespace

const DwarfRegisterSet* dwarf_registers(uint16_t e_machine) {
  static const DwarfRegisterSet x86_64 = make_x86_64(), i386 = make_i386(), aarch64 = make_aarch64();
  switch (e_machine) {
    case EM_X86_64: return &x86_64;
    case EM_386: return &i386;
    case EM_AARCH64: return &aarch64;
    default: return nullptr;
  }
}

}  // namespace ttd::dbg
