/* Floating-point exception flags as a C program sees them (fenv.h):
   each operation after feclearexcept, then the flags fetestexcept
   reports, and a result under each rounding mode. Natively the CPU sets
   them; the recorder must too (sse_host_eval.h; before, Unicorn 2.0.1
   set none on x86-64). Mode "cpu" prints the SSE levels CPUID reports;
   modes "trap" and "trap-fatal" unmask an SSE exception in MXCSR and
   raise it: SIGFPE at the instruction, caught or fatal (x86-64 only);
   mode "intdiv" divides an integer by zero without a handler; mode
   "long-double" prints long double math (x87 on x86-64) and its flags;
   mode "child" runs "all", "long-double" and "trap" in a fork child,
   which the recorder does not record. */
#define _GNU_SOURCE
#include <fenv.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

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

static int long_double_math(void) {
  static volatile long double one = 1.0L, three = 3.0L, big = 1e30L, x = 0.7L;
  printf("expl %.21Lg\nlogl %.21Lg\nlog2l %.21Lg\n", expl(one), logl(three), log2l(three));
  printf("sinl %.21Lg\ncosl %.21Lg\ntanl %.21Lg\n", sinl(x), cosl(x), tanl(x));
  printf("atanl %.21Lg\natan2l %.21Lg\n", atanl(x), atan2l(x, three));
  printf("fmodl %.21Lg\nremainderl %.21Lg\n", fmodl(big, three), remainderl(big, three));
  printf("powl %.21Lg\nexp2l %.21Lg\nsqrtl %.21Lg\n", powl(three, x), exp2l(x), sqrtl(three));
  feclearexcept(FE_ALL_EXCEPT);
  volatile long double r = one / three;
  (void)r;
  report("1.0L / 3.0L");
  r = one / (three - three);
  report("1.0L / 0.0L");
  return 0;
}

#if defined(__x86_64__)
static sigjmp_buf jump;
static volatile int fpe_code, fpe_at_insn;
static volatile unsigned fpe_mxcsr;
static volatile double fpe_xmm0;
extern char fenv_trap_insn[];

static void on_fpe(int sig, siginfo_t* si, void* ctx) {
  ucontext_t* uc = ctx;
  (void)sig;
  fpe_code = si->si_code;
  fpe_at_insn = si->si_addr == (void*)fenv_trap_insn && uc->uc_mcontext.gregs[REG_RIP] == (long)fenv_trap_insn;
  fpe_mxcsr = uc->uc_mcontext.fpregs->mxcsr;
  memcpy((void*)&fpe_xmm0, &uc->uc_mcontext.fpregs->_xmm[0], sizeof(double));
  siglongjmp(jump, 1);
}

/* xmm0 = a / b with `unmask` cleared from MXCSR's mask bits. */
static void divide_unmasked(double a, double b, unsigned unmask) {
  unsigned csr = 0x1f80u & ~unmask;
  __asm__ volatile("ldmxcsr %0\n\t"
                   "movsd %1, %%xmm0\n\t"
                   ".globl fenv_trap_insn\n"
                   "fenv_trap_insn:\n\t"
                   "divsd %2, %%xmm0"
                   :
                   : "m"(csr), "m"(a), "m"(b)
                   : "xmm0");
}

static int traps(int fatal) {
  printf("before\n");
  fflush(stdout);
  if (fatal) {
    divide_unmasked(0.0, 0.0, 0x80); /* invalid unmasked: 0/0 kills the process */
    printf("not reached\n");
    return 0;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fpe;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGFPE, &sa, NULL);
  static const struct {
    double a, b;
    unsigned unmask;
    const char* what;
  } cases[] = {{1.0, 0.0, 0x200, "1/0, divide by zero unmasked"},
               {0.0, 0.0, 0x80, "0/0, invalid unmasked"},
               {1.0, 3.0, 0x1000, "1/3, inexact unmasked"},
               {1e308, 1e-10, 0x400, "1e308/1e-10, overflow unmasked"},
               {1.0, 4.0, 0x1f80, "1/4, all unmasked"}};
  for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    fpe_code = 0;
    if (sigsetjmp(jump, 1) == 0) {
      divide_unmasked(cases[i].a, cases[i].b, cases[i].unmask);
      unsigned csr;
      __asm__ volatile("stmxcsr %0\n\t" : "=m"(csr));
      printf("%-32s no SIGFPE, mxcsr flags %#x\n", cases[i].what, csr & 0x3f);
    } else {
      printf("%-32s SIGFPE si_code %d at the divsd %d, saved mxcsr %#x, xmm0 still %g\n", cases[i].what, fpe_code,
             fpe_at_insn, fpe_mxcsr, fpe_xmm0);
    }
    unsigned masked = 0x1f80;
    __asm__ volatile("ldmxcsr %0" : : "m"(masked));
  }
  return 0;
}
#endif

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "cpu") == 0) return cpu_levels();
#if defined(__x86_64__)
  if (argc > 1 && strcmp(argv[1], "trap") == 0) return traps(0);
  if (argc > 1 && strcmp(argv[1], "trap-fatal") == 0) return traps(1);
#endif
  if (argc > 1 && strcmp(argv[1], "long-double") == 0) return long_double_math();
  if (argc > 1 && strcmp(argv[1], "child") == 0) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      const char* modes[] = {"all", "long-double", "trap"};
      for (unsigned i = 0; i < sizeof modes / sizeof modes[0]; ++i) {
        char* child_argv[] = {argv[0], (char*)modes[i], NULL};
        printf("-- %s\n", modes[i]);
        main(2, child_argv);
      }
      fflush(stdout);
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("child status %d\n", status);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "intdiv") == 0) {
    static volatile int izero = 0;
    printf("before\n");
    fflush(stdout);
    return 10 / izero;
  }
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
