// Timed waits take their time (test_timed_waits.cpp): a futex wait, a
// PI lock, poll, sigtimedwait and a condition variable with a timeout end
// when the clock reaches their end, as natively, whether or not another
// thread runs meanwhile; in a fork's child (not recorded) the wait takes
// real time. Until 2026-11-29 such a wait timed out at once without the
// clock moving ("at least 200 ms: 0"), and only when no other thread could
// run (the worker below then ran to its bound: "stopped by main: 0").
// Each line says what happened and whether the clock moved by at least
// the timeout, and less than 5 s more, so it reads the same natively and
// recorded.
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// Linux's values (musl has no <linux/futex.h>).
#define FUTEX_WAIT 0
#define FUTEX_WAIT_BITSET 9
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CLOCK_REALTIME 256

static long long now_ms(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct timespec after(clockid_t clock, long ms) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += (ms % 1000) * 1000000;
  if (ts.tv_nsec >= 1000000000) {
    ts.tv_sec += 1;
    ts.tv_nsec -= 1000000000;
  }
  return ts;
}

static void report(const char* what, long r, int err, long long t0, long ms) {
  const long long took = now_ms(CLOCK_MONOTONIC) - t0;
  printf("%s: %s, at least %ld ms: %d\n", what, r == 0 ? "0" : err == ETIMEDOUT ? "ETIMEDOUT" : err == EAGAIN ? "EAGAIN" : strerror(err),
         ms, took >= ms && took < ms + 5000);
}

static uint32_t word;

static void futex_waits(void) {
  struct timespec rel = {0, 200 * 1000000};
  long long t0 = now_ms(CLOCK_MONOTONIC);
  long r = syscall(SYS_futex, &word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, &rel, 0, 0);
  report("futex wait", r, errno, t0, 200);
  struct timespec abs = after(CLOCK_MONOTONIC, 150);
  t0 = now_ms(CLOCK_MONOTONIC);
  r = syscall(SYS_futex, &word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0, &abs, 0, ~0u);
  report("futex wait bitset (monotonic)", r, errno, t0, 150);
  abs = after(CLOCK_REALTIME, 100);
  t0 = now_ms(CLOCK_MONOTONIC);
  r = syscall(SYS_futex, &word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME, 0, &abs, 0, ~0u);
  report("futex wait bitset (realtime)", r, errno, t0, 100);
  // An end already past: ETIMEDOUT at once; a bad timespec: EINVAL first.
  abs.tv_sec = 0;
  abs.tv_nsec = 1;
  r = syscall(SYS_futex, &word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0, &abs, 0, ~0u);
  printf("past end: %ld %s\n", r, errno == ETIMEDOUT ? "ETIMEDOUT" : strerror(errno));
  struct timespec bad = {0, 1000000000};
  r = syscall(SYS_futex, &word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 1, &bad, 0, 0);
  printf("bad timeout: %ld %s\n", r, errno == EINVAL ? "EINVAL" : strerror(errno));
}

static void poll_wait(void) {
  int p[2];
  if (pipe(p) != 0) return;
  struct pollfd fd = {p[0], POLLIN, 0};
  long long t0 = now_ms(CLOCK_MONOTONIC);
  int r = poll(&fd, 1, 120);
  report("poll", r, r < 0 ? errno : 0, t0, 120);
}

static void sigtimedwait_wait(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigprocmask(SIG_BLOCK, &set, 0);
  struct timespec ts = {0, 80 * 1000000};
  long long t0 = now_ms(CLOCK_MONOTONIC);
  int r = sigtimedwait(&set, 0, &ts);
  // Linux says EAGAIN for sigtimedwait's timeout.
  report("sigtimedwait", r, r < 0 ? errno : 0, t0, 80);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile int stop;

// Counts while main waits on the condition variable: main's timeout must
// come while this thread still runs, not when it has nothing left to do.
// (Bounded at 1 s, which takes a recording 10^9 steps.)
static void* worker(void* arg) {
  (void)arg;
  const long long t0 = now_ms(CLOCK_MONOTONIC);
  for (unsigned long n = 0; !stop; ++n)
    if ((n & 4095) == 0 && now_ms(CLOCK_MONOTONIC) - t0 > 1000) break;
  printf("worker stopped by main: %d\n", stop);
  return 0;
}

static void cond_wait(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_mutex_lock(&mu);
  struct timespec abs = after(CLOCK_REALTIME, 10);
  long long t0 = now_ms(CLOCK_MONOTONIC);
  int r = pthread_cond_timedwait(&cv, &mu, &abs);
  pthread_mutex_unlock(&mu);
  stop = 1;
  pthread_join(t, 0);
  report("cond timedwait with a worker running", r, r, t0, 10);
}

static pthread_mutex_t pi;

static void* pi_locker(void* arg) {
  (void)arg;
  struct timespec abs = after(CLOCK_REALTIME, 90);
  long long t0 = now_ms(CLOCK_MONOTONIC);
  int r = pthread_mutex_timedlock(&pi, &abs);
  report("PI mutex timedlock", r, r, t0, 90);
  return 0;
}

static void pi_wait(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
  pthread_mutex_init(&pi, &a);
  pthread_mutex_lock(&pi);
  pthread_t t;
  pthread_create(&t, 0, pi_locker, 0);
  pthread_join(t, 0);
  pthread_mutex_unlock(&pi);
}

// A fork's child is not recorded: its timed wait takes real time, and
// the parent's wait4 sees it take that long. (The child's stdout is not
// the recorded process's: its exit status says what it saw.)
static void on_alarm(int sig) { (void)sig; }

static void child_wait(void) {
  fflush(stdout);
  long long t0 = now_ms(CLOCK_MONOTONIC);
  pid_t pid = fork();
  if (pid == 0) {
    struct timespec rel = {0, 300 * 1000000};
    long r = syscall(SYS_futex, &word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, &rel, 0, 0);
    const long long took = now_ms(CLOCK_MONOTONIC) - t0;
    if (r == 0 || errno != ETIMEDOUT) _exit(1);
    if (took < 300) _exit(2);
    // Without a timeout only a signal ends it (SIGALRM's handler, no
    // SA_RESTART: EINTR). Until 2026-11-29 it answered EAGAIN at once.
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, 0);
    const long long t1 = now_ms(CLOCK_MONOTONIC);
    ualarm(200 * 1000, 0);
    r = syscall(SYS_futex, &word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, 0, 0, 0);
    const long long took2 = now_ms(CLOCK_MONOTONIC) - t1;
    _exit(r == 0 || errno != EINTR ? 3 : took2 < 200 ? 4 : 0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  static const char* const kSaid[] = {"ETIMEDOUT after 300 ms, then EINTR after the 200 ms alarm", "not ETIMEDOUT",
                                      "ETIMEDOUT too early", "the untimed wait: not EINTR",
                                      "the untimed wait: EINTR too early"};
  printf("child's futex wait: %s\n", !WIFEXITED(st) ? "killed" : WEXITSTATUS(st) <= 4 ? kSaid[WEXITSTATUS(st)] : "?");
  report("parent's wait for the child", 0, 0, t0, 300);
}

// Python's subprocess.run(timeout=5): waitpid(WNOHANG) between short
// sleeps until the deadline. The child runs in real time, so the parent's
// sleeps must too (until 2026-11-29 they took no time: the deadline passed
// while the child still slept).
static void poll_child(void) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    struct timespec ts = {0, 200 * 1000000};
    nanosleep(&ts, 0);
    _exit(3);
  }
  const long long deadline = now_ms(CLOCK_MONOTONIC) + 5000;
  int st = 0, reaped = 0;
  while (!reaped && now_ms(CLOCK_MONOTONIC) < deadline) {
    reaped = waitpid(pid, &st, WNOHANG) == pid;
    struct timespec ts = {0, 10 * 1000000};
    if (!reaped) nanosleep(&ts, 0);
  }
  if (!reaped) waitpid(pid, &st, 0);
  printf("child reaped before the deadline: %d, status %d\n", reaped, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

// A fork's child waits in select and epoll_wait (timeout 2 s) for what
// its parent writes after 0.2 s (until 2026-11-29 both answered 0 at once
// in the child: bash's `read -t` in a pipeline's subshell gave up). The
// exit status says what it saw.
static void child_select(void) {
  int p[2];
  if (pipe(p) != 0) return;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    fd_set in;
    FD_ZERO(&in);
    FD_SET(p[0], &in);
    struct timeval tv = {2, 0};
    const int sel = select(p[0] + 1, &in, 0, 0, &tv);
    char c;
    if (sel == 1 && read(p[0], &c, 1) != 1) _exit(9);
    const int ep = epoll_create1(0);
    struct epoll_event ev = {EPOLLIN, {0}}, got;
    epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
    const int n = epoll_wait(ep, &got, 1, 2000);
    _exit((sel == 1) + 2 * (n == 1));
  }
  // 0.2 s of real time in the parent, whatever its own sleeps take: a
  // second child that sleeps, waited for.
  for (const char* c = "ab"; *c; ++c) {
    pid_t delay = fork();
    if (delay == 0) {
      struct timespec ts = {0, 200 * 1000000};
      nanosleep(&ts, 0);
      _exit(0);
    }
    waitpid(delay, 0, 0);
    if (write(p[1], c, 1) != 1) return;
  }
  int st = 0;
  waitpid(pid, &st, 0);
  const int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  printf("child's select saw the write: %d, its epoll_wait: %d\n", code >= 0 && (code & 1), code >= 0 && (code & 2) != 0);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  setvbuf(stdout, 0, _IOLBF, 0);
  if (!strcmp(mode, "futex")) futex_waits();
  else if (!strcmp(mode, "poll")) poll_wait(), sigtimedwait_wait();
  else if (!strcmp(mode, "cond")) cond_wait();
  else if (!strcmp(mode, "pi")) pi_wait();
  else if (!strcmp(mode, "child")) child_wait();
  else if (!strcmp(mode, "poll-child")) poll_child();
  else if (!strcmp(mode, "child-select")) child_select();
  else return 2;
  return 0;
}
