// Signal handlers under the recorder (docs/recording.md, "Signals"): one
// mode per argv[1]; what it prints must be what it prints natively.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

static volatile sig_atomic_t count, last_sig, order[8], n_order;
static volatile int info_signo, info_code, info_pid_ok, nested_blocked;
static sigjmp_buf jump;

static void plain(int sig) {
  ++count;
  last_sig = sig;
  if (n_order < 8) order[n_order++] = sig;
}

static void with_info(int sig, siginfo_t* si, void* uc) {
  (void)uc;
  ++count;
  info_signo = si->si_signo;
  info_code = si->si_code;
  info_pid_ok = si->si_pid == getpid();
}

static void install(int sig, void (*h)(int), int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = h;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

static void install_info(int sig, void (*h)(int, siginfo_t*, void*), int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = h;
  sa.sa_flags = SA_SIGINFO | flags;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

static int mode_raise(void) {
  install(SIGUSR1, plain, 0);
  raise(SIGUSR1);
  printf("raise: handler ran %d for signal %d\n", (int)count, (int)last_sig);
  install_info(SIGUSR2, with_info, 0);
  raise(SIGUSR2);
  printf("raise SA_SIGINFO: signo %d code %d pid ok %d\n", info_signo, info_code, info_pid_ok);
  kill(getpid(), SIGUSR2);
  printf("kill SA_SIGINFO: signo %d code %d pid ok %d, %d handlers ran\n", info_signo, info_code, info_pid_ok,
         (int)count);
  signal(SIGUSR1, SIG_IGN);
  raise(SIGUSR1);
  printf("ignored: still %d\n", (int)count);
  return 0;
}

// A load from `p` the handler skips, giving it the value 42 instead.
static long faulting_load(long* p) {
  long v;
#if defined(__x86_64__)
  __asm__ volatile("movq (%1), %0" : "=r"(v) : "r"(p) : "memory");  // 3 bytes with these registers? see handler
#else
  __asm__ volatile("ldr %0, [%1]" : "=r"(v) : "r"(p) : "memory");
#endif
  return v;
}

static volatile uintptr_t fault_addr;
static volatile int fault_code;

static void skip_load(int sig, siginfo_t* si, void* ctx) {
  ucontext_t* uc = ctx;
  fault_addr = (uintptr_t)si->si_addr;
  fault_code = si->si_code;
#if defined(__x86_64__)
  // Decode the length of the mov: REX + 8b + modrm (+ SIB/disp for rsp/rbp bases).
  const unsigned char* ip = (const unsigned char*)uc->uc_mcontext.gregs[REG_RIP];
  const unsigned char modrm = ip[2];
  int len = 3;
  if ((modrm & 7) == 4) ++len;
  if ((modrm >> 6) == 1) ++len;
  const int reg = ((ip[0] >> 2) & 1) * 8 + ((modrm >> 3) & 7);
  static const int gregs_of[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                                   REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  uc->uc_mcontext.gregs[gregs_of[reg]] = 42;
  uc->uc_mcontext.gregs[REG_RIP] += len;
#else
  const uint32_t insn = *(const uint32_t*)uc->uc_mcontext.pc;
  uc->uc_mcontext.regs[insn & 31] = 42;
  uc->uc_mcontext.pc += 4;
#endif
}

static void unprotect(int sig, siginfo_t* si, void* ctx) {
  (void)ctx;
  fault_addr = (uintptr_t)si->si_addr;
  fault_code = si->si_code;
  mprotect((void*)((uintptr_t)si->si_addr & ~(uintptr_t)4095), 4096, PROT_READ | PROT_WRITE);
  ++count;
}

static int mode_mcontext(void) {
  install_info(SIGSEGV, skip_load, 0);
  long v = faulting_load((long*)16);
  printf("skipped load: %ld, si_addr %lu, SEGV_MAPERR %d\n", v, (unsigned long)fault_addr, fault_code == SEGV_MAPERR);
  // A write barrier: the page is read-only until the handler opens it.
  install_info(SIGSEGV, unprotect, 0);
  volatile int* page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  page[5] = 7;
  printf("write barrier: handler ran %d, at the word %d, SEGV_ACCERR %d, value %d\n", (int)count,
         fault_addr == (uintptr_t)&page[5], fault_code == SEGV_ACCERR, page[5]);
  return 0;
}

static void jump_out(int sig) {
  ++count;
  siglongjmp(jump, sig);
}

static int mode_longjmp(void) {
  install(SIGSEGV, jump_out, 0);
  for (int i = 0; i < 2; ++i) {
    int sig = sigsetjmp(jump, 1);
    if (sig == 0) {
      *(volatile int*)8 = 1;
      printf("not reached\n");
    }
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    printf("longjmp out of the handler: signal %d, count %d, SIGSEGV blocked after %d\n", sig, (int)count,
           sigismember(&now, SIGSEGV));
  }
  return 0;
}

static char* alt_base;
static size_t alt_size = 64 * 1024;
static volatile int on_alt, alt_flags;

static void overflow_handler(int sig) {
  char here;
  on_alt = &here >= alt_base && &here < alt_base + alt_size;
  stack_t now;
  sigaltstack(NULL, &now);
  alt_flags = now.ss_flags;
  siglongjmp(jump, 1);
}

static int recurse(volatile char* p) {
  volatile char buf[512];
  buf[0] = p ? p[0] + 1 : 0;
  return recurse(buf) + buf[1];
}

static void* overflowing_thread(void* arg) {
  (void)arg;
  alt_base = malloc(alt_size);
  stack_t ss = {.ss_sp = alt_base, .ss_size = alt_size, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = overflow_handler;
  sa.sa_flags = SA_ONSTACK;
  sigaction(SIGSEGV, &sa, NULL);
  if (sigsetjmp(jump, 1) == 0) recurse(NULL);
  return NULL;
}

static int mode_altstack(void) {
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setstacksize(&a, 128 * 1024);
  pthread_t t;
  pthread_create(&t, &a, overflowing_thread, NULL);
  pthread_join(t, NULL);
  printf("stack overflow caught on the alternate stack: %d, SS_ONSTACK %d\n", on_alt, alt_flags == SS_ONSTACK);
  stack_t now;
  sigaltstack(NULL, &now);
  printf("main thread's alternate stack disabled: %d\n", now.ss_flags == SS_DISABLE);
  return 0;
}

static int mode_mask(void) {
  install(SIGUSR1, plain, 0);
  install(SIGUSR2, plain, 0);
  sigset_t both, old, pend;
  sigemptyset(&both);
  sigaddset(&both, SIGUSR1);
  sigaddset(&both, SIGUSR2);
  sigprocmask(SIG_BLOCK, &both, &old);
  raise(SIGUSR2);
  raise(SIGUSR1);
  raise(SIGUSR1);  // not queued: merged with the pending one
  sigpending(&pend);
  printf("blocked: ran %d, pending USR1 %d USR2 %d\n", (int)count, sigismember(&pend, SIGUSR1),
         sigismember(&pend, SIGUSR2));
  sigprocmask(SIG_SETMASK, &old, NULL);
  printf("unblocked: ran %d, order %d %d\n", (int)count, (int)order[0], (int)order[1]);
  // sigsuspend: waits with the signal unblocked, returns EINTR after the handler.
  sigprocmask(SIG_BLOCK, &both, NULL);
  raise(SIGUSR1);
  sigset_t none;
  sigemptyset(&none);
  int r = sigsuspend(&none);
  int e = errno;
  sigset_t after;
  sigprocmask(SIG_BLOCK, NULL, &after);
  printf("sigsuspend: %d %s, ran %d, USR1 blocked again %d\n", r, e == EINTR ? "EINTR" : "?", (int)count,
         sigismember(&after, SIGUSR1));
  // sigtimedwait takes a pending signal without its handler.
  raise(SIGUSR2);
  siginfo_t si;
  struct timespec zero = {0, 0};
  int s = sigtimedwait(&both, &si, &zero);
  printf("sigtimedwait: %d code %d, ran %d\n", s, si.si_code, (int)count);
  s = sigtimedwait(&both, &si, &zero);
  printf("sigtimedwait with nothing pending: %d %s\n", s, errno == EAGAIN ? "EAGAIN" : "?");
  return 0;
}

static void check_nested(int sig) {
  sigset_t now;
  sigprocmask(SIG_BLOCK, NULL, &now);
  nested_blocked = sigismember(&now, sig);
  ++count;
}

static int mode_resethand(void) {
  install(SIGUSR1, check_nested, SA_RESETHAND);
  raise(SIGUSR1);
  struct sigaction now;
  sigaction(SIGUSR1, NULL, &now);
  printf("SA_RESETHAND: ran %d, SIG_DFL after %d, blocked in handler %d\n", (int)count, now.sa_handler == SIG_DFL,
         nested_blocked);
  install(SIGUSR2, check_nested, SA_NODEFER);
  raise(SIGUSR2);
  printf("SA_NODEFER: ran %d, blocked in handler %d\n", (int)count, nested_blocked);
  return 0;
}

static void fpe_handler(int sig, siginfo_t* si, void* uc) {
  (void)uc;
  fault_code = si->si_code;
  siglongjmp(jump, sig);
}

static int mode_fpe(void) {
  install_info(SIGFPE, fpe_handler, 0);
  volatile int zero = 0, one = 1;
  int sig = sigsetjmp(jump, 1);
  if (!sig) printf("no trap: %d\n", one / zero);
  printf("division by zero: signal %d, FPE_INTDIV %d\n", sig, fault_code == FPE_INTDIV);
  return 0;
}

static volatile int reaped_status = -1, chld_code;

static void reaper(int sig, siginfo_t* si, void* uc) {
  (void)uc;
  ++count;
  chld_code = si->si_code;
  int st;
  if (waitpid(si->si_pid, &st, 0) > 0 && WIFEXITED(st)) reaped_status = WEXITSTATUS(st);
}

static int mode_chld(void) {
  install_info(SIGCHLD, reaper, 0);
  sigset_t chld, none;
  sigemptyset(&chld);
  sigemptyset(&none);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  pid_t pid = fork();
  if (pid == 0) _exit(3);
  while (count == 0) sigsuspend(&none);
  printf("SIGCHLD: handler ran %d, CLD_EXITED %d, reaped status %d\n", (int)count, chld_code == CLD_EXITED,
         reaped_status);
  return 0;
}

// int3 / brk: SIGTRAP; ud2 / udf: SIGILL. x86-64 reports int3 after the
// instruction, the others at it: the handler moves the pc past them.
static volatile int trap_sig, trap_code, trap_at_insn;
static void step_over(int sig, siginfo_t* si, void* ctx) {
  ucontext_t* uc = ctx;
  trap_sig = sig;
  trap_code = si->si_code;
#if defined(__x86_64__)
  const unsigned char* ip = (const unsigned char*)uc->uc_mcontext.gregs[REG_RIP];
  trap_at_insn = ip[0] == 0x0f && ip[1] == 0x0b;  // at the ud2
  if (trap_at_insn) uc->uc_mcontext.gregs[REG_RIP] += 2;
  else trap_at_insn = ip[-1] == 0xcc;  // after the int3
#else
  trap_at_insn = (uintptr_t)si->si_addr == uc->uc_mcontext.pc;
  uc->uc_mcontext.pc += 4;
#endif
}

static int mode_trap(void) {
  install_info(SIGTRAP, step_over, 0);
  install_info(SIGILL, step_over, 0);
#if defined(__x86_64__)
  __asm__ volatile("int3");
#else
  __asm__ volatile("brk #0");
#endif
  printf("breakpoint: signal %d, reported where Linux does %d\n", trap_sig, trap_at_insn);
#if defined(__x86_64__)
  __asm__ volatile("ud2");
#else
  __asm__ volatile("udf #0");
#endif
  printf("undefined instruction: signal %d, at it %d\n", trap_sig, trap_at_insn);
  return 0;
}

// Timers: on the recorder's virtual clock (a step a nanosecond) the spin
// loops below take a few million steps; a thread that waits (pause) lets
// the timer fire at once.
static void tick(int sig) {
  // Natively a tick already pending when the fourth disarms the timer is
  // still delivered (seen under load: "fired 5"); it does not count.
  if (count >= 4) return;
  if (++count == 4) {
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
  }
}

static int mode_alarm(void) {
  install(SIGALRM, plain, 0);
  struct itimerval it = {{0, 0}, {0, 200}};  // 200 us
  setitimer(ITIMER_REAL, &it, NULL);
  while (count == 0) {
  }
  printf("setitimer: fired %d, signal %d\n", (int)count, (int)last_sig);
  install(SIGALRM, tick, 0);
  it = (struct itimerval){{0, 100}, {0, 100}};  // every 100 us, until the fourth tick stops it
  setitimer(ITIMER_REAL, &it, NULL);
  while (count < 4) {
  }
  printf("interval timer: fired %d\n", (int)count);
  alarm(5);
  printf("alarm: %u left of 5\n", alarm(0));
  install(SIGALRM, plain, 0);
  it = (struct itimerval){{0, 0}, {0, 20000}};  // 20 ms
  setitimer(ITIMER_REAL, &it, NULL);
  int r = pause();
  printf("pause: %d %s, fired %d\n", r, errno == EINTR ? "EINTR" : "?", (int)count);
  return 0;
}

static volatile pid_t handler_tid, worker_tid;
static volatile int worker_ready;
static int pipe_fds[2];

static void note_tid(int sig) { handler_tid = (pid_t)syscall(SYS_gettid); }

static void* reader(void* arg) {
  worker_tid = (pid_t)syscall(SYS_gettid);
  worker_ready = 1;
  char c;
  ssize_t r = read(pipe_fds[0], &c, 1);
  int e = errno;
  printf("worker read: %zd %s\n", r, r < 0 ? (e == EINTR ? "EINTR" : "?") : "byte");
  return NULL;
}

static int run_tgkill(int flags) {
  install(SIGUSR1, note_tid, flags);
  pipe(pipe_fds);
  handler_tid = 0;
  worker_ready = 0;
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  while (!worker_ready) sched_yield();
  usleep(100000);  // natively: let it block in read
  syscall(SYS_tgkill, getpid(), worker_tid, SIGUSR1);
  while (!handler_tid) sched_yield();
  write(pipe_fds[1], "x", 1);
  pthread_join(t, NULL);
  printf("handler ran in the worker: %d\n", handler_tid == worker_tid);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  return 0;
}

static int mode_tgkill(void) {
  run_tgkill(0);
  printf("with SA_RESTART:\n");
  return run_tgkill(SA_RESTART);
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char* m = argc > 1 ? argv[1] : "";
  if (!strcmp(m, "raise")) return mode_raise();
  if (!strcmp(m, "mcontext")) return mode_mcontext();
  if (!strcmp(m, "longjmp")) return mode_longjmp();
  if (!strcmp(m, "altstack")) return mode_altstack();
  if (!strcmp(m, "mask")) return mode_mask();
  if (!strcmp(m, "resethand")) return mode_resethand();
  if (!strcmp(m, "fpe")) return mode_fpe();
  if (!strcmp(m, "chld")) return mode_chld();
  if (!strcmp(m, "tgkill")) return mode_tgkill();
  if (!strcmp(m, "trap")) return mode_trap();
  if (!strcmp(m, "alarm")) return mode_alarm();
  fprintf(stderr, "usage: signals raise|mcontext|longjmp|altstack|mask|resethand|fpe|chld|tgkill|trap|alarm\n");
  return 2;
}
