// Legacy SSE instructions with a 16-byte memory operand (movaps, movdqa,
// paddd, pcmpeqb, pand, movntdq, ...), cmpxchg16b, fxsave and fxrstor
// need that operand 16-byte aligned: otherwise the CPU raises #GP and
// Linux sends SIGSEGV with si_code SI_KERNEL and si_addr 0, before the
// instruction changes anything. movups, movdqu, lddqu and the SSE4.2
// string compares take any address. Unicorn 2.0.1 checks none of this
// (tools/recorder/sse_alignment.h). Modes:
//   caught  each instruction on a misaligned and an aligned operand under
//           a SIGSEGV handler: the signal's fields, trapno and err, and
//           that neither the register nor the memory changed
//   fatal   a misaligned movaps without a handler (status 139)
//   child   `caught` in a fork's child (not recorded without --follow-fork)
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)

static sigjmp_buf back;
static const unsigned char* expected_rip;
static unsigned char xmm0_after[16];  // right after the instruction, or at its fault

static void on_segv(int sig, siginfo_t* si, void* ctx) {
  const ucontext_t* uc = ctx;
  printf("  signal %d si_code %d si_addr %p trapno %lld err %lld rip at it %d\n", sig, si->si_code, si->si_addr,
         (long long)uc->uc_mcontext.gregs[REG_TRAPNO], (long long)uc->uc_mcontext.gregs[REG_ERR],
         (const unsigned char*)uc->uc_mcontext.gregs[REG_RIP] == expected_rip);
  memcpy(xmm0_after, &uc->uc_mcontext.fpregs->_xmm[0], 16);
  siglongjmp(back, 1);
}

// 64 bytes of pattern, 64-byte aligned: buffer + 16 is aligned, + 8 is not.
static unsigned char buffer[128] __attribute__((aligned(64)));
static unsigned char fx_area[512 + 64] __attribute__((aligned(64)));

static void fill(void) {
  for (int i = 0; i < (int)sizeof buffer; ++i) buffer[i] = (unsigned char)(i * 7 + 1);
}

static void show_xmm0(void) {
  const unsigned char* x = xmm0_after;
  printf("  xmm0 %02x%02x..%02x, memory %02x%02x..%02x %02x%02x..%02x\n", x[0], x[1], x[15], buffer[8],
         buffer[9], buffer[23], buffer[16], buffer[17], buffer[31]);
}

// Each test: xmm0 = 0x55 bytes, then the instruction on buffer + offset.
#define SSE_TEST(name, insn)                                                      \
  static void name(unsigned off) {                                                \
    static const unsigned char fives[16] = {0x55, 0x55, 0x55, 0x55, 0x55, 0x55,   \
                                            0x55, 0x55, 0x55, 0x55, 0x55, 0x55,   \
                                            0x55, 0x55, 0x55, 0x55};              \
    unsigned char* p = buffer + off;                                              \
    __asm__ volatile("movdqu %0, %%xmm0" : : "m"(fives) : "xmm0");                \
    __asm__ volatile("lea 1f(%%rip), %0" : "=r"(expected_rip));                   \
    __asm__ volatile("1: " insn "\n\tmovdqu %%xmm0, %1"                            \
                     : : "r"(p), "m"(xmm0_after) : "xmm0", "memory", "cc", "rax", "rcx"); \
  }
SSE_TEST(movaps_load, "movaps (%0), %%xmm0")
SSE_TEST(movaps_store, "movaps %%xmm0, (%0)")
SSE_TEST(movdqa_load, "movdqa (%0), %%xmm0")
SSE_TEST(movapd_store, "movapd %%xmm0, (%0)")
SSE_TEST(paddd_m128, "paddd (%0), %%xmm0")
SSE_TEST(pcmpeqb_m128, "pcmpeqb (%0), %%xmm0")
SSE_TEST(pand_m128, "pand (%0), %%xmm0")
SSE_TEST(addps_m128, "addps (%0), %%xmm0")
SSE_TEST(punpcklqdq_m128, "punpcklqdq (%0), %%xmm0")
SSE_TEST(pshufd_m128, "pshufd $0x1b, (%0), %%xmm0")
SSE_TEST(movntdq_store, "movntdq %%xmm0, (%0)")
SSE_TEST(movntdqa_load, "movntdqa (%0), %%xmm0")
SSE_TEST(aesenc_m128, "aesenc (%0), %%xmm0")
SSE_TEST(pclmulqdq_m128, "pclmulqdq $0x11, (%0), %%xmm0")
// Any address: no fault.
SSE_TEST(movups_load, "movups (%0), %%xmm0")
SSE_TEST(movdqu_store, "movdqu %%xmm0, (%0)")
SSE_TEST(lddqu_load, "lddqu (%0), %%xmm0")
SSE_TEST(pcmpistri_m128, "pcmpistri $0, (%0), %%xmm0")
SSE_TEST(movq_m64, "movq (%0), %%xmm0")
SSE_TEST(movsd_m64, "movsd (%0), %%xmm0")

static void cmpxchg16b_test(unsigned off) {
  unsigned char* p = buffer + off;
  __asm__ volatile("lea 1f(%%rip), %0" : "=r"(expected_rip));
  __asm__ volatile("xor %%eax, %%eax\n\txor %%edx, %%edx\n\txor %%ebx, %%ebx\n\txor %%ecx, %%ecx\n\t"
                   "1: lock cmpxchg16b (%0)"
                   : : "r"(p) : "rax", "rbx", "rcx", "rdx", "memory", "cc");
}

static void fxsave_test(unsigned off) {
  __asm__ volatile("lea 1f(%%rip), %0" : "=r"(expected_rip));
  __asm__ volatile("1: fxsave64 (%0)" : : "r"(fx_area + off) : "memory");
}

static void fxrstor_test(unsigned off) {
  __asm__ volatile("fxsave64 (%0)" : : "r"(fx_area) : "memory");
  if (off) memmove(fx_area + off, fx_area, 512);
  __asm__ volatile("lea 1f(%%rip), %0" : "=r"(expected_rip));
  __asm__ volatile("1: fxrstor64 (%0)" : : "r"(fx_area + off) : "memory");
}

struct test {
  const char* name;
  void (*run)(unsigned);
};

static void caught(void) {
  static const struct test tests[] = {
      {"movaps load", movaps_load},     {"movaps store", movaps_store},   {"movdqa load", movdqa_load},
      {"movapd store", movapd_store},   {"paddd m128", paddd_m128},       {"pcmpeqb m128", pcmpeqb_m128},
      {"pand m128", pand_m128},         {"addps m128", addps_m128},       {"punpcklqdq m128", punpcklqdq_m128},
      {"pshufd m128", pshufd_m128},     {"movntdq store", movntdq_store}, {"movntdqa load", movntdqa_load},
      {"aesenc m128", aesenc_m128},     {"pclmulqdq m128", pclmulqdq_m128}, {"movups load", movups_load},     {"movdqu store", movdqu_store},
      {"lddqu load", lddqu_load},       {"pcmpistri m128", pcmpistri_m128}, {"movq m64", movq_m64},
      {"movsd m64", movsd_m64},         {"cmpxchg16b", cmpxchg16b_test},
  };
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
  for (unsigned i = 0; i < sizeof tests / sizeof tests[0]; ++i) {
    for (unsigned off = 8; off <= 16; off += 8) {
      fill();
      printf("%s at +%u:\n", tests[i].name, off);
      if (!sigsetjmp(back, 1)) {
        tests[i].run(off);
        printf("  ran\n");
      }
      if (tests[i].run == cmpxchg16b_test)  // xmm0 is not its business
        printf("  memory %02x%02x..%02x %02x%02x..%02x\n", buffer[8], buffer[9], buffer[23], buffer[16], buffer[17],
               buffer[31]);
      else
        show_xmm0();
    }
  }
  for (unsigned off = 8; off <= 16; off += 8) {
    printf("fxsave at +%u:\n", off);
    memset(fx_area, 0xaa, sizeof fx_area);
    if (!sigsetjmp(back, 1)) {
      fxsave_test(off);
      printf("  ran\n");
    }
    printf("  area %02x %02x\n", fx_area[off], fx_area[off + 1]);
    printf("fxrstor at +%u:\n", off);
    if (!sigsetjmp(back, 1)) {
      fxrstor_test(off);
      printf("  ran\n");
    }
  }
}

static void fatal(void) {
  printf("before\n");
  fflush(stdout);
  movaps_load(8);
  printf("movaps on a misaligned operand did not fault\n");
}

#endif

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "caught";
  setvbuf(stdout, NULL, _IOLBF, 0);
#if !defined(__x86_64__)
  printf("mode %s: x86-64 only\n", mode);
  return 0;
#else
  if (!strcmp(mode, "caught")) caught();
  else if (!strcmp(mode, "fatal")) fatal();
  else if (!strcmp(mode, "child")) {
    pid_t pid = fork();
    if (pid == 0) {
      caught();
      fflush(stdout);
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  } else {
    printf("unknown mode %s\n", mode);
    return 2;
  }
  return 0;
#endif
}
