// SSE instructions that raise MXCSR's sticky exception flags: inexact,
// divide by zero, invalid, overflow, underflow, denormal, each after the
// flags were cleared, plus rounding control and FTZ/DAZ. The CPU sets the
// flags (a program's fetestexcept reads them); Unicorn 2.0.1 never does.
// The recorder evaluates such instructions on the host (sse_host_eval.h).
// stmxcsr stores every result, so memory is compared too.
#include "start.h"

double fid_d[] = {1.0, 3.0, 0.0, -1.0, 1e308, 1e-308, 4.9e-324, 2.5, 0.0};
float fid_f[] = {1.0f, 3.0f, 1e38f, 1e-38f, 0.0f};
unsigned long long fid_snan_d = 0x7ff0000000000001ull, fid_qnan_d = 0x7ff8000000000000ull;
unsigned fid_snan_f = 0x7f800001u;
long long fid_big_int = 0x7fffffffffffff01ll;
unsigned fid_csr[32];
unsigned fid_clear = 0x1f80, fid_round_zero = 0x7f80, fid_ftz_daz = 0x9fc0;
float fid_p1[4] __attribute__((aligned(16))) = {1.0f, 1e38f, 0.0f, 5.0f};
float fid_p2[4] __attribute__((aligned(16))) = {3.0f, 1e38f, 0.0f, 2.0f};
double fid_out[8];

#define CLEAR "ldmxcsr fid_clear(%%rip)\n\t"
#define SAVE(i) "stmxcsr fid_csr+" #i "*4(%%rip)\n\t"

void fid_main(void) {
  __asm__ volatile(
      // inexact: 1/3
      CLEAR "movsd fid_d(%%rip), %%xmm0\n\t divsd fid_d+8(%%rip), %%xmm0\n\t" SAVE(0)
      // divide by zero: 1/0, register operand
      CLEAR "movsd fid_d(%%rip), %%xmm0\n\t movsd fid_d+16(%%rip), %%xmm1\n\t divsd %%xmm1, %%xmm0\n\t" SAVE(1)
      // invalid: 0/0 and sqrt(-1)
      CLEAR "movsd fid_d+16(%%rip), %%xmm0\n\t divsd %%xmm1, %%xmm0\n\t" SAVE(2)
      CLEAR "sqrtsd fid_d+24(%%rip), %%xmm2\n\t" SAVE(3)
      // overflow and underflow
      CLEAR "movsd fid_d+32(%%rip), %%xmm0\n\t mulsd %%xmm0, %%xmm0\n\t" SAVE(4)
      CLEAR "movsd fid_d+40(%%rip), %%xmm0\n\t mulsd %%xmm0, %%xmm0\n\t" SAVE(5)
      // denormal operand
      CLEAR "movsd fid_d(%%rip), %%xmm0\n\t addsd fid_d+48(%%rip), %%xmm0\n\t" SAVE(6)
      // an exact operation leaves the flags clear
      CLEAR "movsd fid_d(%%rip), %%xmm0\n\t addsd %%xmm0, %%xmm0\n\t" SAVE(7)
      // conversions: out of range, inexact, int64 to double inexact, double to float overflow
      CLEAR "cvttsd2si fid_d+32(%%rip), %%rax\n\t" SAVE(8)
      CLEAR "cvtsd2si fid_d+56(%%rip), %%eax\n\t" SAVE(9)
      CLEAR "cvtsi2sdq fid_big_int(%%rip), %%xmm3\n\t" SAVE(10)
      CLEAR "mov fid_big_int(%%rip), %%rcx\n\t cvtsi2ss %%rcx, %%xmm3\n\t" SAVE(11)
      CLEAR "cvtsd2ss fid_d+32(%%rip), %%xmm4\n\t" SAVE(12)
      CLEAR "cvtss2sd fid_snan_f(%%rip), %%xmm4\n\t" SAVE(13)
      // compares: a signalling NaN to ucomisd, a quiet one to comisd
      CLEAR "movsd fid_d(%%rip), %%xmm0\n\t ucomisd fid_snan_d(%%rip), %%xmm0\n\t" SAVE(14)
      CLEAR "comisd fid_qnan_d(%%rip), %%xmm0\n\t" SAVE(15)
      CLEAR "ucomisd fid_qnan_d(%%rip), %%xmm0\n\t" SAVE(16)
      // max with a quiet NaN is invalid; min of numbers is exact
      CLEAR "maxsd fid_qnan_d(%%rip), %%xmm0\n\t" SAVE(17)
      CLEAR "movsd fid_d(%%rip), %%xmm0\n\t minsd fid_d+8(%%rip), %%xmm0\n\t" SAVE(18)
      // packed single: inexact, overflow, invalid (0/0) in different lanes
      CLEAR "movaps fid_p1(%%rip), %%xmm5\n\t mulps fid_p2(%%rip), %%xmm5\n\t" SAVE(19)
      CLEAR "movaps fid_p1(%%rip), %%xmm5\n\t divps fid_p2(%%rip), %%xmm5\n\t" SAVE(20)
      // float scalar and packed double
      CLEAR "movss fid_f(%%rip), %%xmm6\n\t divss fid_f+4(%%rip), %%xmm6\n\t" SAVE(21)
      CLEAR "movss fid_f+12(%%rip), %%xmm6\n\t mulss %%xmm6, %%xmm6\n\t" SAVE(22)
      CLEAR "movapd fid_d(%%rip), %%xmm7\n\t subpd fid_d+16(%%rip), %%xmm7\n\t" SAVE(23)
      CLEAR "sqrtpd fid_d+16(%%rip), %%xmm7\n\t" SAVE(24)
      // flags stay set across later exact instructions (sticky)
      CLEAR "movsd fid_d(%%rip), %%xmm0\n\t divsd fid_d+8(%%rip), %%xmm0\n\t addsd %%xmm1, %%xmm1\n\t" SAVE(25)
      // rounding toward zero changes the result, not only the flags
      "ldmxcsr fid_round_zero(%%rip)\n\t movsd fid_d(%%rip), %%xmm0\n\t divsd fid_d+8(%%rip), %%xmm0\n\t"
      "movsd %%xmm0, fid_out(%%rip)\n\t" SAVE(26)
      // FTZ and DAZ: a denormal input counts as zero (no DE), a tiny result is flushed
      "ldmxcsr fid_ftz_daz(%%rip)\n\t movsd fid_d(%%rip), %%xmm0\n\t addsd fid_d+48(%%rip), %%xmm0\n\t" SAVE(27)
      "movsd fid_d+40(%%rip), %%xmm0\n\t mulsd %%xmm0, %%xmm0\n\t movsd %%xmm0, fid_out+8(%%rip)\n\t" SAVE(28)
      // compare predicates: LT signals on a quiet NaN, EQ does not
      CLEAR "movsd fid_d(%%rip), %%xmm0\n\t cmpltsd fid_qnan_d(%%rip), %%xmm0\n\t" SAVE(29)
      CLEAR "movsd fid_d(%%rip), %%xmm0\n\t cmpeqsd fid_qnan_d(%%rip), %%xmm0\n\t" SAVE(30)
      CLEAR "movaps fid_p1(%%rip), %%xmm5\n\t cmpps $1, fid_p2(%%rip), %%xmm5\n\t" SAVE(31)
      // round: inexact unless suppressed (imm bit 3)
      CLEAR "roundsd $4, fid_d+56(%%rip), %%xmm0\n\t" SAVE(0)
      CLEAR "roundsd $12, fid_d+56(%%rip), %%xmm0\n\t" SAVE(1)
      CLEAR "roundps $1, fid_p1(%%rip), %%xmm5\n\t" SAVE(2)
      // approximations: the CPU's own bits (Unicorn divided exactly)
      "movaps fid_p2(%%rip), %%xmm5\n\t rcpps %%xmm5, %%xmm6\n\t rsqrtps %%xmm5, %%xmm7\n\t"
      "rcpss fid_f+4(%%rip), %%xmm6\n\t rsqrtss fid_f+4(%%rip), %%xmm7\n\t"
      // horizontal and alternating add, packed conversions
      CLEAR "movapd fid_d+32(%%rip), %%xmm7\n\t haddpd %%xmm7, %%xmm7\n\t" SAVE(3)
      CLEAR "movaps fid_p1(%%rip), %%xmm5\n\t addsubps fid_p2(%%rip), %%xmm5\n\t" SAVE(4)
      CLEAR "cvtps2dq fid_p1(%%rip), %%xmm5\n\t" SAVE(5)
      CLEAR "cvttpd2dq fid_d+32(%%rip), %%xmm5\n\t" SAVE(6)
      CLEAR "pcmpeqd %%xmm5, %%xmm5\n\t psrld $1, %%xmm5\n\t cvtdq2ps %%xmm5, %%xmm5\n\t" SAVE(7)
      CLEAR "cvtps2pd fid_p1(%%rip), %%xmm5\n\t cvtpd2ps %%xmm5, %%xmm5\n\t" SAVE(8)
      CLEAR "mov $0x7fffffff, %%ecx\n\t cvtsi2ss %%ecx, %%xmm3\n\t" SAVE(9)
      CLEAR "cvttss2si fid_f+8(%%rip), %%eax\n\t" SAVE(10)
      CLEAR "cvtss2si fid_f+8(%%rip), %%rax\n\t" SAVE(11)
      CLEAR
      :
      :
      : "memory", "rax", "rcx", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "cc");
}
