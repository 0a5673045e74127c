// POPCNT and MOVBE, which Unicorn 2.0.1 calls invalid, PDEP and PEXT,
// which it computes wrong (the recorder runs them itself), and AVX, which
// it computes wrong and CPUID does not report (SIGILL, as on a CPU without
// it): tools/recorder/missing_instructions.h. Modes:
//   run    every form: 64/32/16-bit, register and memory sources, a zero
//          source (ZF), the flags after them, movbe loads and stores
//   fault  their memory operand unmapped or read-only: SIGSEGV with
//          si_code and si_addr, caught
//   child  `run` in a fork's child (not recorded without --follow-fork)
//   bmi2   pdep and pext, 32 and 64 bits, register and memory masks
//   avx    vpaddd with a SIGILL handler (natively, on a CPU with AVX, the
//          sum; recorded, SIGILL at it); avx-fatal: without a handler
//   clmul  pclmulqdq, the four quadword choices, register and memory
//          sources (PCLMULQDQ, invalid under Unicorn)
//   rdrand rdrand (invalid under Unicorn): CF and the other flags, the
//          16- and 32-bit forms' upper bits, values that vary (the values
//          themselves cannot match a native run)
//   rdseed the same for rdseed (a CPU without RDSEED, as this project's
//          test machines, raises SIGILL natively)
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define FLAGS_MASK 0x8d5u  // CF PF AF ZF SF OF

static uint64_t memory64 = 0xf00d00000000beefull;

static void run(void) {
  uint64_t r64, f;
  uint32_t r32;
  uint16_t r16;
  // Flags set first so that clearing them shows.
  __asm__ volatile("mov $-1, %%rax\n\tadd $1, %%rax\n\tstc\n\tpopcnt %2, %0\n\tpushfq\n\tpopq %1"
                   : "=r"(r64), "=r"(f) : "r"(0xff00ff00ff00ff01ull) : "rax", "cc");
  printf("popcnt64 reg %llu flags %#llx\n", (unsigned long long)r64, (unsigned long long)(f & FLAGS_MASK));
  __asm__ volatile("popcnt %2, %0\n\tpushfq\n\tpopq %1" : "=r"(r64), "=r"(f) : "r"(0ull) : "cc");
  printf("popcnt64 zero %llu flags %#llx\n", (unsigned long long)r64, (unsigned long long)(f & FLAGS_MASK));
  __asm__ volatile("popcnt %2, %0\n\tpushfq\n\tpopq %1" : "=r"(r64), "=r"(f) : "m"(memory64) : "cc");
  printf("popcnt64 mem %llu flags %#llx\n", (unsigned long long)r64, (unsigned long long)(f & FLAGS_MASK));
  // A 32-bit destination clears the upper half.
  r64 = ~0ull;
  __asm__ volatile("popcnt %1, %k0" : "+r"(r64) : "r"(0x80000001u) : "cc");
  printf("popcnt32 reg %#llx\n", (unsigned long long)r64);
  __asm__ volatile("popcnt %1, %0" : "=r"(r32) : "m"(*(uint32_t*)&memory64) : "cc");
  printf("popcnt32 mem %u\n", r32);
  // A 16-bit destination keeps the rest.
  r64 = 0x1234567890abcdefull;
  __asm__ volatile("popcnt %1, %w0" : "+r"(r64) : "r"((uint16_t)0xffff) : "cc");
  printf("popcnt16 reg %#llx\n", (unsigned long long)r64);
  __asm__ volatile("popcnt %1, %0" : "=r"(r16) : "m"(*(uint16_t*)&memory64) : "cc");
  printf("popcnt16 mem %u\n", r16);
  // MOVBE: loads and stores, flags untouched.
  __asm__ volatile("mov $-1, %%rax\n\tadd $1, %%rax\n\tmovbe %2, %0\n\tpushfq\n\tpopq %1"
                   : "=r"(r64), "=r"(f) : "m"(memory64) : "rax", "cc");
  printf("movbe64 load %#llx flags %#llx\n", (unsigned long long)r64, (unsigned long long)(f & FLAGS_MASK));
  r64 = ~0ull;
  __asm__ volatile("movbe %1, %k0" : "+r"(r64) : "m"(*(uint32_t*)&memory64));
  printf("movbe32 load %#llx\n", (unsigned long long)r64);
  r64 = ~0ull;
  __asm__ volatile("movbe %1, %w0" : "+r"(r64) : "m"(*(uint16_t*)&memory64));
  printf("movbe16 load %#llx\n", (unsigned long long)r64);
  uint64_t out = 0;
  __asm__ volatile("movbe %1, %0" : "=m"(out) : "r"(0x0102030405060708ull));
  printf("movbe64 store %#llx\n", (unsigned long long)out);
  out = ~0ull;
  __asm__ volatile("movbe %1, %0" : "=m"(*(uint32_t*)&out) : "r"(0x0a0b0c0du));
  printf("movbe32 store %#llx\n", (unsigned long long)out);
  out = ~0ull;
  __asm__ volatile("movbe %1, %0" : "=m"(*(uint16_t*)&out) : "r"((uint16_t)0x1122));
  printf("movbe16 store %#llx\n", (unsigned long long)out);
  // In a loop, as a program's hot path would run it.
  uint64_t total = 0;
  for (uint64_t i = 0; i < 1000; ++i) {
    __asm__ volatile("popcnt %1, %0" : "=r"(r64) : "r"(i * 0x9e3779b97f4a7c15ull) : "cc");
    total += r64;
  }
  printf("popcnt loop %llu\n", (unsigned long long)total);
}

static void bmi2(void) {
  uint64_t v = 0x123456789abcdef1ull, m = 0x0f0f00ff00f0f00full, r;
  uint32_t r32;
  __asm__("pdep %2, %1, %0" : "=r"(r) : "r"(v), "r"(m));
  printf("pdep64 reg %#llx\n", (unsigned long long)r);
  __asm__("pext %2, %1, %0" : "=r"(r) : "r"(v), "m"(m));
  printf("pext64 mem %#llx\n", (unsigned long long)r);
  r = ~0ull;
  __asm__("pdep %2, %1, %k0" : "+r"(r) : "r"((uint32_t)v), "r"((uint32_t)m));
  printf("pdep32 reg %#llx\n", (unsigned long long)r);
  __asm__("pext %2, %1, %0" : "=r"(r32) : "r"((uint32_t)v), "m"(*(uint32_t*)&m));
  printf("pext32 mem %#x\n", r32);
  uint64_t total = 0;
  for (uint64_t i = 1; i < 500; ++i) {
    __asm__("pext %2, %1, %0" : "=r"(r) : "r"(i * 0x9e3779b97f4a7c15ull), "r"(i * 0x5bd1e995ull));
    total += r;
  }
  printf("pext loop %llu\n", (unsigned long long)total);
}

static void avx(void) {
  uint32_t a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, c[4] = {0};
  __asm__ volatile("movdqu %1, %%xmm1\n\tmovdqu %2, %%xmm2\n\tpxor %%xmm0, %%xmm0\n\t"
                   "vpaddd %%xmm2, %%xmm1, %%xmm0\n\tmovdqu %%xmm0, %0"
                   : "=m"(c) : "m"(a), "m"(b) : "xmm0", "xmm1", "xmm2");
  printf("vpaddd %u %u %u %u\n", c[0], c[1], c[2], c[3]);
}

static void clmul(void) {
  static uint64_t source[2] __attribute__((aligned(16))) = {0x8000000000000001ull, 0xfedcba9876543210ull};
  const uint64_t a[2] = {0x0123456789abcdefull, 0xffffffff00000001ull};
  for (int imm = 0; imm < 4; ++imm) {
    uint64_t r[2] = {0, 0}, m[2] = {0, 0};
    // Register source (xmm1 = source), then memory; the immediate is fixed
    // per instruction, so one asm per choice.
#define CLMUL(IMM)                                                                          \
  __asm__ volatile("movdqu %2, %%xmm0\n\tmovdqu %3, %%xmm1\n\tpclmulqdq $" #IMM ", %%xmm1, %%xmm0\n\t" \
                   "movdqu %%xmm0, %0\n\tmovdqu %2, %%xmm0\n\tpclmulqdq $" #IMM ", %4, %%xmm0\n\t"     \
                   "movdqu %%xmm0, %1"                                                        \
                   : "=m"(r), "=m"(m) : "m"(a), "m"(source), "m"(source) : "xmm0", "xmm1")
    switch (imm) {
      case 0: CLMUL(0x00); break;
      case 1: CLMUL(0x01); break;
      case 2: CLMUL(0x10); break;
      default: CLMUL(0x11); break;
    }
#undef CLMUL
    printf("pclmulqdq %d reg %016llx%016llx mem %016llx%016llx\n", imm, (unsigned long long)r[1],
           (unsigned long long)r[0], (unsigned long long)m[1], (unsigned long long)m[0]);
  }
}

// rdrand or rdseed (`seed`) in every width.
static void random_bits(int seed) {
  const char* name = seed ? "rdseed" : "rdrand";
  uint64_t v, f, distinct = 0, last = 0;
  for (int i = 0; i < 64; ++i) {
    if (seed) __asm__ volatile("mov $-1, %%rax\n\tadd $1, %%rax\n\trdseed %0\n\tpushfq\n\tpopq %1" : "=r"(v), "=r"(f) : : "rax", "cc");
    else __asm__ volatile("mov $-1, %%rax\n\tadd $1, %%rax\n\trdrand %0\n\tpushfq\n\tpopq %1" : "=r"(v), "=r"(f) : : "rax", "cc");
    if (i == 0) printf("%s64 flags %#llx\n", name, (unsigned long long)(f & FLAGS_MASK));
    distinct += v != last;
    last = v;
  }
  printf("%s64 values vary %d\n", name, distinct > 60);
  v = 0x1234567800000000ull;
  if (seed) __asm__ volatile("rdseed %k0" : "+r"(v) : : "cc");
  else __asm__ volatile("rdrand %k0" : "+r"(v) : : "cc");
  printf("%s32 upper %#llx\n", name, (unsigned long long)(v >> 32));
  v = 0x1234567890ab0000ull;
  if (seed) __asm__ volatile("rdseed %w0" : "+r"(v) : : "cc");
  else __asm__ volatile("rdrand %w0" : "+r"(v) : : "cc");
  printf("%s16 upper %#llx\n", name, (unsigned long long)(v >> 16));
}

static sigjmp_buf back;
static uintptr_t fault_base;  // si_addr is printed from here (mmap's addresses differ between runs)
static void on_segv(int sig, siginfo_t* si, void* ctx) {
  (void)ctx;
  printf("signal %d si_code %d si_addr base + %#llx\n", sig, si->si_code,
         (unsigned long long)((uintptr_t)si->si_addr - fault_base));
  siglongjmp(back, 1);
}

static void on_ill(int sig, siginfo_t* si, void* ctx) {
  const unsigned char* at = si->si_addr;
  const ucontext_t* uc = ctx;
  printf("signal %d si_code %d at %02x %02x %02x rip at it %d trapno %lld\n", sig, si->si_code, at[0], at[1], at[2],
         (uintptr_t)uc->uc_mcontext.gregs[REG_RIP] == (uintptr_t)at, (long long)uc->uc_mcontext.gregs[REG_TRAPNO]);
  siglongjmp(back, 1);
}

static void catch_signal(int sig, void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigaction(sig, &sa, NULL);
}

static void avx_caught(void) {
  catch_signal(SIGILL, on_ill);
  if (!sigsetjmp(back, 1)) avx();
  printf("after avx\n");
}

static void fault(void) {
  catch_signal(SIGSEGV, on_segv);
  uint64_t r = 7;
  if (!sigsetjmp(back, 1)) {
    __asm__ volatile("popcnt (%1), %0" : "+r"(r) : "r"((uint64_t*)0x10) : "cc", "memory");
    printf("popcnt of an unmapped address did not fault\n");
  }
  printf("after: %llu\n", (unsigned long long)r);
  uint64_t* ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  fault_base = (uintptr_t)ro;
  if (!sigsetjmp(back, 1)) {
    __asm__ volatile("movbe %1, (%0)" : : "r"(ro), "r"(r) : "memory");
    printf("movbe to a read-only page did not fault\n");
  }
  printf("read-only page holds %llu\n", (unsigned long long)*ro);
  munmap(ro, 4096);
}

#endif

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "run";
  setvbuf(stdout, NULL, _IONBF, 0);
#if !defined(__x86_64__)
  printf("mode %s: x86-64 only\n", mode);
  return 0;
#else
  if (!strcmp(mode, "run")) run();
  else if (!strcmp(mode, "fault")) fault();
  else if (!strcmp(mode, "bmi2")) bmi2();
  else if (!strcmp(mode, "clmul")) clmul();
  else if (!strcmp(mode, "rdrand")) random_bits(0);
  else if (!strcmp(mode, "rdseed")) random_bits(1);
  else if (!strcmp(mode, "avx")) avx_caught();
  else if (!strcmp(mode, "avx-fatal")) avx();
  else if (!strcmp(mode, "child")) {
    pid_t pid = fork();
    if (pid == 0) {
      run();
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  } else {
    return 2;
  }
  return 0;
#endif
}
