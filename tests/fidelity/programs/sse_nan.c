// mulps with a quiet NaN in the same lane of both operands. The CPU returns
// the destination's NaN (the first operand); Unicorn 2.0.1 returns the
// source's. tests/fidelity pins that known difference (docs/recording.md).
#include "start.h"

unsigned fid_dst[4] __attribute__((aligned(16))) = {0x7fc00001u, 0x3f800000u, 0x7fc00003u, 0x40000000u};
unsigned fid_src[4] __attribute__((aligned(16))) = {0x7fc00002u, 0x40400000u, 0x3f800000u, 0x7fc00004u};
unsigned fid_r[4] __attribute__((aligned(16)));

void fid_main(void) {
  __asm__ volatile(
      "movaps fid_dst(%%rip), %%xmm0\n\t"
      "movaps fid_src(%%rip), %%xmm1\n\t"
      "mulps %%xmm1, %%xmm0\n\t"
      "movaps %%xmm0, fid_r(%%rip)\n\t"
      :
      :
      : "memory", "xmm0", "xmm1");
}
