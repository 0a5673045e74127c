#include "tools/recorder/x87_host_ops.h"

namespace ttd::rec {

bool x87_runs_on_host(uint8_t op, uint8_t m) {
  if (m < 0xc0) return false;
  switch (op) {
    case 0xd8: return true;  // fadd fmul fcom fcomp fsub fsubr fdiv fdivr st0, st(i)
    case 0xd9:
      // fld st(i), fxch, fnop, fchs, fabs, ftst, fxam, the constants, and
      // f2xm1 ... fcos (F0-FF).
      return m <= 0xd0 || m == 0xe0 || m == 0xe1 || m == 0xe4 || m == 0xe5 || (m >= 0xe8 && m <= 0xee) || m >= 0xf0;
    case 0xda: return m == 0xe9;                        // fucompp (C0-DF: fcmov reads EFLAGS)
    case 0xdb: return m >= 0xe8 && m <= 0xf7;           // fucomi, fcomi
    case 0xdc: return m < 0xd0 || m >= 0xe0;            // fadd fmul fsubr fsub fdivr fdiv st(i), st0
    case 0xdd: return m < 0xc8 || (m >= 0xd0 && m <= 0xef);  // ffree, fst, fstp st(i), fucom, fucomp
    case 0xde: return m < 0xd0 || m == 0xd9 || m >= 0xe0;    // faddp fmulp fcompp fsubrp fsubp fdivrp fdivp
    case 0xdf: return m >= 0xe8 && m <= 0xf7;           // fucomip, fcomip
    default: return false;
  }
}

X87MemoryForm x87_memory_form(uint8_t op, uint8_t reg) {
  switch (op) {
    case 0xd8: return {4, false};  // fadd ... fdivr m32fp
    case 0xd9:                     // fld m32fp, fst, fstp m32fp
      return reg == 0 ? X87MemoryForm{4, false} : reg == 2 || reg == 3 ? X87MemoryForm{4, true} : X87MemoryForm{};
    case 0xda: return {4, false};  // fiadd ... fidivr m32int
    case 0xdb:                     // fild, fisttp, fist, fistp m32int; fld, fstp m80fp
      if (reg == 0) return {4, false};
      if (reg <= 3) return {4, true};
      if (reg == 5) return {10, false};
      if (reg == 7) return {10, true};
      return {};
    case 0xdc: return {8, false};  // fadd ... fdivr m64fp
    case 0xdd:                     // fld, fisttp, fst, fstp m64fp
      return reg == 0 ? X87MemoryForm{8, false} : reg <= 3 ? X87MemoryForm{8, true} : X87MemoryForm{};
    case 0xde: return {2, false};  // fiadd ... fidivr m16int
    case 0xdf:                     // fild, fisttp, fist, fistp m16int; fbld, fild m64, fbstp, fistp m64
      switch (reg) {
        case 0: return {2, false};
        case 1: case 2: case 3: return {2, true};
        case 4: return {10, false};
        case 5: return {8, false};
        case 6: return {10, true};
        default: return {8, true};
      }
    default: return {};
  }
}

#if defined(__x86_64__)

// One function per x87 encoding, 32 bytes apart: f(guest image in rdi, a
// word for the host's MXCSR in rsi, a memory form's operand in rdx) loads
// the guest's state, runs the two bytes and stores the result. What the
// ABI asks a callee to keep is then put back: an empty x87 stack and the
// control word (fninit: 0x37f, what the recorder runs with) and MXCSR;
// the xmm registers FXRSTOR overwrote are the caller's to lose. Only
// entries x87_runs_on_host / x87_memory_form accept are ever called (the
// rest include invalid encodings). 512 register forms D8 C0 ... DF FF, then
// 64 memory forms D8 /0 ... DF /7 with the operand at (%rdx).
asm(R"(
  .pushsection .text
  .macro ttd_x87_entry hi, lo
  .balign 32
  endbr64
  stmxcsr (%rsi)
  fxrstor (%rdi)
  .byte \hi, \lo
  fxsave (%rdi)
  fninit
  ldmxcsr (%rsi)
  ret
  .endm
  .balign 32
  .globl ttd_x87_register_ops
  .hidden ttd_x87_register_ops
ttd_x87_register_ops:
  .irp hi, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf
  .irp lo, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff
  ttd_x87_entry \hi, \lo
  .endr
  .endr
  .balign 32
  .globl ttd_x87_memory_ops
  .hidden ttd_x87_memory_ops
ttd_x87_memory_ops:
  .irp hi, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf
  .irp lo, 0x02, 0x0a, 0x12, 0x1a, 0x22, 0x2a, 0x32, 0x3a
  ttd_x87_entry \hi, \lo
  .endr
  .endr
  .purgem ttd_x87_entry
  .popsection
)");

extern "C" char ttd_x87_register_ops[];
extern "C" char ttd_x87_memory_ops[];

bool run_x87_memory_on_host(uint8_t opcode, uint8_t reg, FxsaveImage& image, uint8_t* operand) {
  if (opcode < 0xd8 || opcode > 0xdf || reg > 7 || x87_memory_form(opcode, reg).bytes == 0) return false;
  uint32_t host_mxcsr;
  using Fn = void (*)(FxsaveImage*, uint32_t*, uint8_t*);
  const size_t index = size_t(opcode - 0xd8) * 8 + reg;
  reinterpret_cast<Fn>(ttd_x87_memory_ops + 32 * index)(&image, &host_mxcsr, operand);
  return true;
}

bool run_x87_on_host(uint8_t opcode, uint8_t modrm, FxsaveImage& image) {
  if (!x87_runs_on_host(opcode, modrm)) return false;
  uint32_t host_mxcsr;
  using Fn = void (*)(FxsaveImage*, uint32_t*);
  const size_t index = size_t(opcode - 0xd8) * 64 + size_t(modrm - 0xc0);
  reinterpret_cast<Fn>(ttd_x87_register_ops + 32 * index)(&image, &host_mxcsr);
  return true;
}

#else

bool run_x87_on_host(uint8_t, uint8_t, FxsaveImage&) { return false; }
bool run_x87_memory_on_host(uint8_t, uint8_t, FxsaveImage&, uint8_t*) { return false; }

#endif

}  // namespace ttd::rec
