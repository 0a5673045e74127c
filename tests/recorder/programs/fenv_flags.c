/* Floating-point exception flags as a C program sees them (fenv.h):
   each operation after feclearexcept, then the flags fetestexcept
   reports, and a result under each rounding mode. Natively the CPU sets
   them; the recorder must too (sse_host_eval.h; before, Unicorn 2.0.1
   set none on x86-64). Mode "cpu" prints the SSE levels CPUID reports
   (x86-64 only). */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static volatile double zero = 0.0, one = 1.0, three = 3.0, big = 1e308, tiny = 1e-308, minus = -1.0;
static volatile float fbig = 3e38f;

static void report(const char* what) {
  int f = fetestexcept(FE_ALL_EXCEPT);
  printf("%-22s%s%s%s%s%s%s\n", what, f & FE_INEXACT ? " inexact" : "", f & FE_DIVBYZERO ? " divbyzero" : "",
         f & FE_INVALID ? " invalid" : "", f & FE_OVERFLOW ? " overflow" : "", f & FE_UNDERFLOW ? " underflow" : "",
         f ? "" : " none");
  feclearexcept(FE_ALL_EXCEPT);
}

static int cpu_levels(void) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  printf("mmx %d sse %d sse2 %d sse3 %d ssse3 %d sse4.1 %d sse4.2 %d\n", !!__builtin_cpu_supports("mmx"),
         !!__builtin_cpu_supports("sse"), !!__builtin_cpu_supports("sse2"), !!__builtin_cpu_supports("sse3"),
         !!__builtin_cpu_supports("ssse3"), !!__builtin_cpu_supports("sse4.1"), !!__builtin_cpu_supports("sse4.2"));
#endif
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "cpu") == 0) return cpu_levels();
  volatile double r;
  volatile long l;
  volatile float fr;
  feclearexcept(FE_ALL_EXCEPT);
  r = one + three;
  report("1 + 3");
  r = one / three;
  report("1 / 3");
  r = one / zero;
  report("1 / 0");
  r = zero / zero;
  report("0 / 0");
  r = sqrt(minus);
  report("sqrt(-1)");
  r = big * big;
  report("1e308 * 1e308");
  r = tiny * tiny;
  report("1e-308 * 1e-308");
  l = (long)(big);
  report("(long)1e308");
  fr = (float)(big);
  report("(float)1e308");
  fr = fbig * (float)three;
  report("3e38f * 3");
  (void)r, (void)l, (void)fr;
  static const struct {
    int mode;
    const char* name;
  } modes[] = {{FE_TONEAREST, "nearest"}, {FE_UPWARD, "upward"}, {FE_DOWNWARD, "downward"}, {FE_TOWARDZERO, "toward zero"}};
  for (unsigned i = 0; i < sizeof modes / sizeof modes[0]; ++i) {
    fesetround(modes[i].mode);
    r = one / three;
    printf("1/3 rounded %-12s %.17g\n", modes[i].name, r);
    r = minus / three;
    printf("-1/3 rounded %-11s %.17g\n", modes[i].name, r);
  }
  fesetround(FE_TONEAREST);
  feclearexcept(FE_ALL_EXCEPT);
  return 0;
}
