// x86-64 instructions whose memory operand the CPU wants 16-byte aligned:
// legacy-encoded (not VEX) SSE instructions with a 16-byte memory operand
// (movaps, movdqa, paddd, pcmpeqb, movntdq, aesenc ...), cmpxchg16b,
// fxsave and fxrstor. On any other address the CPU raises #GP before the
// instruction changes anything, and Linux sends SIGSEGV with si_code
// SI_KERNEL and si_addr 0 (trapno 13, err 0). movups, movupd, movdqu,
// lddqu, maskmovdqu and the SSE4.2 string compares take any address, as
// do the forms with smaller operands (movq, movsd, pmovzx ... m64).
//
// Unicorn 2.0.1 checks none of this: a program that crashes natively on a
// misaligned movaps (a stack misaligned by hand-written assembly, a JIT or
// a foreign-function call, then glibc's SSE code on it) ran on under the
// recorder. The recorder's code hook checks the operand of each such
// instruction before Unicorn runs it (missing_instructions.h,
// OwnRun::CheckAlignment). Not covered: xsave/xrstor's 64-byte rule and
// AMD's MXCSR.MM (misaligned SSE allowed; Linux leaves it off).
#pragma once
#include <capstone/capstone.h>

namespace ttd::rec {

constexpr unsigned kSseAlignment = 16;

// True if insn (decoded with details) is of the AVX family: AVX, AVX2,
// AVX-512, FMA, FMA4, F16C or XOP, VEX- or EVEX-encoded. Such forms take
// any address, and the recorder does not run them (missing_instructions.h).
bool is_avx_family(const cs_insn& insn);

// True if insn (decoded with details) raises #GP on a memory operand that
// is not 16-byte aligned.
bool needs_aligned_operand(const cs_insn& insn);

}  // namespace ttd::rec
