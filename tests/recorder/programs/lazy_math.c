/* Calls libm with floating-point arguments, each function's first call
   through its PLT slot: a dynamically linked build binds them lazily, so
   the loader's trampoline (_dl_runtime_resolve) must keep xmm0/xmm1 for
   the callee (issue 16: under Unicorn without CR4.OSFXSR it did not). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* fxsave's image holds MXCSR (offset 24) and xmm0 (offset 160), and
   fxrstor brings xmm0 back: what the trampoline relies on. */
static void check_fxsave(void) {
#if defined(__x86_64__)
  static const unsigned char pattern[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  unsigned char image[512] __attribute__((aligned(16)));
  unsigned char back[16];
  unsigned int mxcsr = 0;
  memset(image, 0, sizeof image);
  __asm__ volatile("movdqu %2, %%xmm0\n\t"
                   "fxsave %0\n\t"
                   "pxor %%xmm0, %%xmm0\n\t"
                   "fxrstor %0\n\t"
                   "movdqu %%xmm0, %1"
                   : "+m"(image), "=m"(back)
                   : "m"(pattern)
                   : "xmm0");
  memcpy(&mxcsr, image + 24, 4);
  printf("fxsave mxcsr %#x xmm0 %s restored %s\n", mxcsr,
         memcmp(image + 160, pattern, 16) == 0 ? "saved" : "missing",
         memcmp(back, pattern, 16) == 0 ? "yes" : "no");
#endif
}

int main(int argc, char** argv) {
  volatile double x = argc > 1 ? atof(argv[1]) : 10.0;
  volatile double y = argc > 2 ? atof(argv[2]) : 0.5;
  check_fxsave();
  printf("log %.17g\n", log(x));
  printf("exp %.17g\n", exp(x));
  printf("pow %.17g\n", pow(x, y));
  printf("sin %.17g\n", sin(x));
  printf("atan2 %.17g\n", atan2(y, x));
  printf("ldexp %.17g\n", ldexp(x, 3));
  return 0;
}
