/* Instructions that stop Unicorn or trap, and what Linux does with them:
   "hlt" (x86-64: #GP, SIGSEGV kills the process), "hlt-handled" (the
   handler sees SI_KERNEL and trapno 13, moves rip past it), "int" (int
   $0x42: #GP, SIGSEGV), "icebp" (#DB: SIGTRAP), "wait" (AArch64 wfi and
   wfe run on in user mode; x86-64 pause). Before 2026-11-29 the recorder
   ended a run silently with status 0 at hlt, wfi or wfe, and every
   unhandled trap with SIGTRAP. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#if defined(__x86_64__)
static void on_segv(int sig, siginfo_t* si, void* ctx) {
  ucontext_t* uc = ctx;
  (void)sig;
  printf("SIGSEGV si_code %d trapno %lld\n", si->si_code, (long long)uc->uc_mcontext.gregs[REG_TRAPNO]);
  uc->uc_mcontext.gregs[REG_RIP] += 1; /* past the hlt */
}
#endif

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  printf("before\n");
  fflush(stdout);
#if defined(__x86_64__)
  if (strcmp(mode, "hlt") == 0) __asm__ volatile("hlt");
  if (strcmp(mode, "hlt-handled") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    __asm__ volatile("hlt");
  }
  if (strcmp(mode, "int") == 0) __asm__ volatile("int $0x42");
  /* A 32-bit exit(42): Linux's IA32 emulation runs it, the recorder not. */
  if (strcmp(mode, "int80") == 0) __asm__ volatile("mov $1, %eax\n\tmov $42, %ebx\n\tint $0x80");
  if (strcmp(mode, "icebp") == 0) __asm__ volatile(".byte 0xf1");
  if (strcmp(mode, "wait") == 0) __asm__ volatile("pause");
#elif defined(__aarch64__)
  if (strcmp(mode, "wait") == 0) __asm__ volatile("wfi\n\twfe\n\tyield");
#endif
  printf("after\n");
  return 0;
}
