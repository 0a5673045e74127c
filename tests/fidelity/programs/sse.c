// SSE arithmetic with exact results (MXCSR's sticky flags stay clear),
// shuffles, compares into EFLAGS (ucomiss -> jp), and a write(2) to
// stdout.
#include "start.h"

float fid_a[8] __attribute__((aligned(16))) = {1.5f, -2.0f, 0.25f, 8.0f, 3.0f, 0.5f, -1.0f, 16.0f};
float fid_r[16] __attribute__((aligned(16)));
long fid_written;

void fid_main(void) {
  __asm__ volatile(
      "movaps fid_a(%%rip), %%xmm0\n\t"
      "movaps fid_a+16(%%rip), %%xmm1\n\t"
      "movaps %%xmm0, %%xmm2\n\t"
      "mulps %%xmm1, %%xmm2\n\t"
      "addps %%xmm0, %%xmm2\n\t"
      "subps %%xmm1, %%xmm2\n\t"
      "shufps $0x1b, %%xmm2, %%xmm2\n\t"
      "movaps %%xmm2, fid_r(%%rip)\n\t"
      "xorps %%xmm3, %%xmm3\n\t"
      "ucomiss %%xmm3, %%xmm0\n\t"
      "jp 1f\n\t"
      "cvtsi2ss %%eax, %%xmm4\n"
      "1:\n\t"
      "pxor %%xmm5, %%xmm5\n\t"
      "paddd %%xmm1, %%xmm5\n\t"
      "movaps %%xmm5, fid_r+16(%%rip)\n\t"
      :
      :
      : "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "cc");
  static const char msg[] = "fidelity: sse done\n";
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(1L), "D"(1L), "S"(msg), "d"(sizeof msg - 1) : "rcx", "r11", "memory");
  fid_written = ret;
}
