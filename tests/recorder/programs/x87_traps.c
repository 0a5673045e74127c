/* x87 exceptions the control word unmasks (#MF), as Linux delivers them:
   the exception is raised by the next waiting x87 instruction, before it
   runs; SIGFPE's si_code by the flag, si_addr and the saved rip at that
   instruction, trapno 16, the saved x87 state as the CPU left it (the
   destination an invalid or divide-by-zero operation does not write, the
   bias-adjusted result of an overflow or underflow, the rounded result of
   an inexact one, a store an invalid operation suppresses; an MMX
   instruction signals it too), the handler
   starting with a fresh FPU. Mode "caught" runs each case with a handler
   that jumps out, "resume" one whose handler masks the exception in the
   saved state and returns (the instruction runs again), "fatal" one
   without a handler, "child" all of them in fork children. Before
   2026-11-29 the recorder delivered none: "divide" printed inf and went
   on. x86-64 only (elsewhere the modes print a line and exit 0). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__x86_64__)
static sigjmp_buf jump;
static volatile int resume;
static long double one = 1.0L, huge = 1e30L, big = 1e4000L, tiny = 1e-4000L, out;
static double zero_d = 0.0, minus_d = -1.0, three_d = 3.0, out_d;
static volatile long long out_ll;
static unsigned short cw;

/* glibc and musl name the saved state's type differently, its fields alike. */
typedef __typeof__(((ucontext_t*)0)->uc_mcontext.fpregs) fpstate_ptr;

static void print_st(const char* name, fpstate_ptr fp, int i) {
  printf(" %s %04x:%04x%04x%04x%04x", name, fp->_st[i].exponent, fp->_st[i].significand[3], fp->_st[i].significand[2],
         fp->_st[i].significand[1], fp->_st[i].significand[0]);
}

static void on_fpe(int sig, siginfo_t* si, void* ctx) {
  ucontext_t* uc = ctx;
  fpstate_ptr fp = uc->uc_mcontext.fpregs;
  const unsigned char* at = si->si_addr;
  unsigned short hcw, hsw;
  (void)sig;
  __asm__ volatile("fnstcw %0\n\tfnstsw %1" : "=m"(hcw), "=m"(hsw));
  printf("  SIGFPE si_code %d at %02x %02x trapno %lld rip at it %d; saved cwd %04x swd %04x ftw %02x;", si->si_code,
         at[0], at[1], (long long)uc->uc_mcontext.gregs[REG_TRAPNO],
         uc->uc_mcontext.gregs[REG_RIP] == (long long)si->si_addr, fp->cwd, fp->swd, fp->ftw);
  print_st("st0", fp, 0);
  print_st("st1", fp, 1);
  printf("; handler cw %04x sw %04x\n", hcw, hsw);
  fflush(stdout);
  if (resume) {
    fp->swd &= (unsigned short)~0x80ff; /* the flags, ES and B */
    fp->cwd |= 0x3f;
    return;
  }
  siglongjmp(jump, 1);
}

/* Each case sets its control word, runs, and prints; a trap jumps back. */
static void run(const char* name, void (*body)(void)) {
  printf("%s\n", name);
  fflush(stdout);
  out = 0;
  out_d = 0;
  out_ll = 12345;
  if (sigsetjmp(jump, 1) == 0) {
    body();
    printf("  no trap\n");
  }
  __asm__ volatile("fninit");
  printf("  after: out %La out_d %a out_ll %lld\n", out, out_d, out_ll);
}

static void divide(void) {
  cw = 0x37b; /* ZE unmasked: the quotient is not written, fstpt traps */
  __asm__ volatile("fldcw %1\n\tfldt %2\n\tfdivl %3\n\tfstpt %0" : "=m"(out) : "m"(cw), "m"(one), "m"(zero_d));
}
static void invalid(void) {
  cw = 0x37e;
  __asm__ volatile("fldcw %1\n\tfldl %2\n\tfsqrt\n\tfstpl %0" : "=m"(out_d) : "m"(cw), "m"(minus_d));
}
static void overflow(void) {
  cw = 0x377; /* OE: st0 gets the product scaled by 2^-24576 */
  __asm__ volatile("fldcw %0\n\tfldt %1\n\tfmul %%st(0), %%st\n\tfwait" : : "m"(cw), "m"(big));
}
static void underflow(void) {
  cw = 0x36f; /* UE: scaled by 2^24576 */
  __asm__ volatile("fldcw %1\n\tfldt %2\n\tfmul %%st(0), %%st\n\tfstpt %0" : "=m"(out) : "m"(cw), "m"(tiny));
}
static void inexact(void) {
  cw = 0x35f; /* PE: the rounded quotient is written, then fstpt traps */
  __asm__ volatile("fldcw %1\n\tfldt %2\n\tfdivl %3\n\tfstpt %0" : "=m"(out) : "m"(cw), "m"(one), "m"(three_d));
}
static void store_suppressed(void) {
  cw = 0x37e; /* IE: fistpll of 1e30 stores nothing and pops nothing */
  __asm__ volatile("fldcw %1\n\tfldt %2\n\tfistpll %0\n\tfwait" : "=m"(out_ll) : "m"(cw), "m"(huge));
}
static void unmasked_later(void) {
  /* The flag is set while masked; fldcw unmasks it, fld1 traps. */
  cw = 0x37f;
  unsigned short unmask = 0x37b;
  __asm__ volatile("fldcw %0\n\tfldt %2\n\tfdivl %3\n\tfstp %%st(0)\n\tfldcw %1\n\tfld1\n\tfstp %%st(0)"
                   :
                   : "m"(cw), "m"(unmask), "m"(one), "m"(zero_d));
}
static void mmx(void) {
  /* An MMX instruction signals it too: pxor %mm0, %mm0 traps. */
  cw = 0x37b;
  __asm__ volatile("fldcw %0\n\tfldt %1\n\tfdivl %2\n\tpxor %%mm0, %%mm0\n\temms" : : "m"(cw), "m"(one), "m"(zero_d));
}
static void sse_mm(void) {
  /* So does an SSE instruction with an mm register operand: cvtpi2ps. */
  cw = 0x37b;
  __asm__ volatile("fldcw %0\n\tfldt %1\n\tfdivl %2\n\tcvtpi2ps %%mm0, %%xmm0\n\temms"
                   : : "m"(cw), "m"(one), "m"(zero_d) : "xmm0");
}
static void sse_mm_memory(void) {
  /* Its memory form takes no x87 exception (the next fwait does) and
     leaves the x87 stack as it was (Unicorn alone enters MMX mode). */
  cw = 0x37b;
  static long long pair = 0x0000000200000001ll;
  __asm__ volatile("fldcw %0\n\tfldt %1\n\tfdivl %2\n\tcvtpi2ps %3, %%xmm0\n\tcvtpi2pd %3, %%xmm1\n\tfwait"
                   : : "m"(cw), "m"(one), "m"(zero_d), "m"(pair) : "xmm0", "xmm1");
}
static void no_wait(void) {
  /* fnstsw and fnclex do not wait: no trap, and nothing pending after. */
  unsigned short sw;
  cw = 0x37b;
  __asm__ volatile("fldcw %1\n\tfldt %2\n\tfdivl %3\n\tfnstsw %0\n\tfnclex\n\tfld1\n\tfstp %%st(0)"
                   : "=m"(sw)
                   : "m"(cw), "m"(one), "m"(zero_d));
  printf("  fnstsw %04x\n", sw);
}

static void on_fpe_handler(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fpe;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGFPE, &sa, NULL);
}

static int caught(void) {
  on_fpe_handler();
  run("divide", divide);
  run("invalid", invalid);
  run("overflow", overflow);
  run("underflow", underflow);
  run("inexact", inexact);
  run("store suppressed", store_suppressed);
  run("unmasked later", unmasked_later);
  run("mmx", mmx);
  run("sse with an mm register", sse_mm);
  run("sse with an mm memory operand", sse_mm_memory);
  run("no wait", no_wait);
  return 0;
}

static int resumed(void) {
  on_fpe_handler();
  resume = 1;
  run("divide, resumed", divide);
  run("store suppressed, resumed", store_suppressed);
  return 0;
}

static int child(const char* mode) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    if (strcmp(mode, "fatal") == 0) divide();
    else caught();
    fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) printf("child %s: signal %d\n", mode, WTERMSIG(status));
  else printf("child %s: status %d\n", mode, WEXITSTATUS(status));
  return 0;
}
#endif

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "caught";
#if defined(__x86_64__)
  if (strcmp(mode, "caught") == 0) return caught();
  if (strcmp(mode, "resume") == 0) return resumed();
  if (strcmp(mode, "fatal") == 0) {
    printf("before\n");
    fflush(stdout);
    divide();
    printf("not reached\n");
    return 0;
  }
  if (strcmp(mode, "child") == 0) {
    child("caught");
    return child("fatal");
  }
#endif
  printf("mode %s: x86-64 only\n", mode);
  return 0;
}
