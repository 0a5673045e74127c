// POSIX timers, timerfd and /proc/self/status under the recorder
// (docs/recording.md, "Timers" and "/proc"): one mode per argv[1]; it
// prints only what is the same in every native run (counts of the
// expirations it waits for, never times), so the recording must print
// the same.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#ifndef SIGEV_THREAD_ID
#define SIGEV_THREAD_ID 4
#endif

static volatile sig_atomic_t count, code_ok, value_ok, wrong_thread;
static volatile long target_tid;

static void on_timer(int sig, siginfo_t* si, void* uc) {
  (void)sig;
  (void)uc;
  ++count;
  code_ok = si->si_code == SI_TIMER;
  value_ok = si->si_value.sival_int == 7;
  if (target_tid && syscall(SYS_gettid) != target_tid) wrong_thread = 1;
}

static void install(int sig) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_timer;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

static struct itimerspec spec(long value_ns, long interval_ns) {
  struct itimerspec s;
  s.it_value.tv_sec = value_ns / 1000000000;
  s.it_value.tv_nsec = value_ns % 1000000000;
  s.it_interval.tv_sec = interval_ns / 1000000000;
  s.it_interval.tv_nsec = interval_ns % 1000000000;
  return s;
}

// SIGEV_SIGNAL: five periodic expirations counted by a handler.
static int mode_signal(void) {
  install(SIGUSR1);
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGUSR1;
  ev.sigev_value.sival_int = 7;
  timer_t t;
  if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0) return printf("timer_create: errno %d\n", errno), 1;
  struct itimerspec s = spec(2000000, 2000000), cur;
  timer_settime(t, 0, &s, NULL);
  while (count < 5) pause();
  timer_gettime(t, &cur);
  const int overrun = timer_getoverrun(t);
  printf("signal: %d expirations, si_code SI_TIMER %d, si_value %d, overrun >= 0 %d, interval kept %d\n", (int)count,
         (int)code_ok, (int)value_ok, overrun >= 0, cur.it_interval.tv_nsec == 2000000);
  const int del = timer_delete(t), again = timer_delete(t);
  printf("delete: %d, again: %d errno %d\n", del, again, errno);
  // timer_gettime of an armed one-shot: some time left, no more than set.
  timer_t g;
  timer_create(CLOCK_REALTIME, NULL, &g);
  s = spec(10000000000L, 0);
  timer_settime(g, 0, &s, NULL);
  timer_gettime(g, &cur);
  const long long left = cur.it_value.tv_sec * 1000000000LL + cur.it_value.tv_nsec;
  printf("gettime: left > 0 %d, <= set %d\n", left > 0, left <= 10000000000LL);
  s = spec(0, 0);
  timer_settime(g, 0, &s, NULL);
  timer_gettime(g, &cur);
  printf("disarmed: %d\n", cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);
  // TIMER_ABSTIME: one second after now on CLOCK_REALTIME, then waited for.
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  count = 0;
  ev.sigev_value.sival_int = 7;
  timer_t a;
  timer_create(CLOCK_REALTIME, &ev, &a);
  s.it_interval.tv_sec = s.it_interval.tv_nsec = 0;
  s.it_value = now;
  s.it_value.tv_nsec += 3000000;
  if (s.it_value.tv_nsec >= 1000000000) s.it_value.tv_sec++, s.it_value.tv_nsec -= 1000000000;
  timer_settime(a, TIMER_ABSTIME, &s, NULL);
  while (count < 1) pause();
  printf("abstime: %d expiration\n", (int)count);
  const int bad = timer_create(12345, NULL, &a);
  printf("bad clock: %d errno %d\n", bad, errno);
  return 0;
}

static void* waiter(void* arg) {
  (void)arg;
  target_tid = syscall(SYS_gettid);
  while (count < 3) pause();
  return NULL;
}

// SIGEV_THREAD_ID: the signal goes to the named thread, not the main one.
static int mode_thread_id(void) {
  install(SIGUSR2);
  pthread_t th;
  pthread_create(&th, NULL, waiter, NULL);
  while (!target_tid) sched_yield();
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGUSR2;
  ev.sigev_value.sival_int = 7;
  const int tid = (int)target_tid;
  memcpy((char*)&ev + 16, &tid, 4);  // sigev_notify_thread_id
  timer_t t;
  if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0) return printf("timer_create: errno %d\n", errno), 1;
  struct itimerspec s = spec(1000000, 1000000);
  timer_settime(t, 0, &s, NULL);
  pthread_join(th, NULL);
  timer_delete(t);
  printf("thread_id: >= 3 expirations %d, all in the named thread %d, si_code SI_TIMER %d\n", count >= 3,
         !wrong_thread, (int)code_ok);
  // A thread id not of this process.
  int bad = 1;
  memcpy((char*)&ev + 16, &bad, 4);
  const int r = timer_create(CLOCK_MONOTONIC, &ev, &t);
  printf("thread_id of another process: %d errno %d\n", r, errno);
  return 0;
}

static sem_t fired;
static volatile int callbacks, callback_value_ok;

static void callback(union sigval v) {
  callback_value_ok = v.sival_int == 7;
  if (__atomic_add_fetch(&callbacks, 1, __ATOMIC_SEQ_CST) <= 3) sem_post(&fired);
}

// SIGEV_THREAD: the C library's helper thread runs the callback.
static int mode_sigev_thread(void) {
  sem_init(&fired, 0, 0);
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD;
  ev.sigev_notify_function = callback;
  ev.sigev_value.sival_int = 7;
  timer_t t;
  if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0) return printf("timer_create: errno %d\n", errno), 1;
  struct itimerspec s = spec(2000000, 2000000);
  timer_settime(t, 0, &s, NULL);
  for (int i = 0; i < 3; ++i) sem_wait(&fired);
  timer_delete(t);
  printf("sigev_thread: 3 callbacks, value %d\n", callback_value_ok);
  return 0;
}

// timerfd: blocking reads of a one-shot and a periodic timer, a
// non-blocking read, what it is (fstat, /proc/self/fd), poll.
static int mode_timerfd(void) {
  int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  struct itimerspec s = spec(5000000, 0), cur;
  timerfd_settime(fd, 0, &s, NULL);
  uint64_t n = 0;
  ssize_t r = read(fd, &n, 8);
  printf("one-shot: read %zd, expirations %llu\n", r, (unsigned long long)n);
  s = spec(1000000, 1000000);
  timerfd_settime(fd, 0, &s, NULL);
  int ok = 1;
  for (int i = 0; i < 3; ++i) {
    n = 0;
    ok &= read(fd, &n, 8) == 8 && n >= 1;
  }
  printf("periodic: 3 reads of >= 1 expiration %d\n", ok);
  s = spec(0, 0);
  timerfd_settime(fd, 0, &s, &cur);
  printf("old value: interval %ld\n", cur.it_interval.tv_nsec);
  r = read(fd, &n, 4);
  printf("short read: %zd errno %d\n", r, errno);
  r = write(fd, &n, 8);
  printf("write: %zd errno %d\n", r, errno);

  int nb = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
  s = spec(10000000000L, 0);
  timerfd_settime(nb, 0, &s, NULL);
  r = read(nb, &n, 8);
  printf("non-blocking: %zd EAGAIN %d\n", r, errno == EAGAIN);
  timerfd_gettime(nb, &cur);
  const long long left = cur.it_value.tv_sec * 1000000000LL + cur.it_value.tv_nsec;
  printf("gettime: left > 0 %d, <= set %d\n", left > 0, left <= 10000000000LL);
  printf("F_GETFL nonblock %d\n", (fcntl(nb, F_GETFL) & O_NONBLOCK) != 0);
  struct pollfd p = {nb, POLLIN, 0};
  printf("poll before expiry: %d\n", poll(&p, 1, 0));
  // An absolute time already past: due at once.
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  s.it_value = now;
  timerfd_settime(nb, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &s, NULL);
  p.revents = 0;
  const int polled = poll(&p, 1, 1000);
  printf("poll after expiry: %d revents POLLIN %d\n", polled, (p.revents & POLLIN) != 0);
  r = read(nb, &n, 8);
  printf("read after: %zd expirations %llu\n", r, (unsigned long long)n);

  struct stat st;
  fstat(fd, &st);
  char link[64] = {0}, path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  readlink(path, link, sizeof link - 1);
  printf("fstat type bits %o, link %s\n", (unsigned)(st.st_mode & S_IFMT), link);
  const int bad_clock = timerfd_create(CLOCK_PROCESS_CPUTIME_ID, 0);
  const int clock_errno = errno;
  const int bad_flags = timerfd_create(CLOCK_MONOTONIC, 1);
  printf("bad clock: %d errno %d, bad flags: %d errno %d\n", bad_clock, clock_errno, bad_flags, errno);
  close(fd);
  close(nb);
  return 0;
}

// epoll over a pipe that is ready now and a timerfd that expires later.
static int mode_epoll(void) {
  int pfd[2];
  pipe(pfd);
  write(pfd[1], "x", 1);
  int tfd = timerfd_create(CLOCK_MONOTONIC, 0);
  struct itimerspec s = spec(200000000, 0);
  timerfd_settime(tfd, 0, &s, NULL);
  int ep = epoll_create1(0);
  struct epoll_event e = {.events = EPOLLIN, .data.u32 = 1};
  epoll_ctl(ep, EPOLL_CTL_ADD, pfd[0], &e);
  e.data.u32 = 2;
  epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &e);
  for (int round = 0; round < 2; ++round) {
    struct epoll_event out[4];
    const int n = epoll_wait(ep, out, 4, -1);
    printf("epoll round %d: %d event(s):", round, n);
    for (int i = 0; i < n; ++i) {
      printf(" %s", out[i].data.u32 == 1 ? "pipe" : "timerfd");
      char c;
      uint64_t x;
      if (out[i].data.u32 == 1) read(pfd[0], &c, 1);
      else if (read(tfd, &x, 8) == 8) printf(" (%llu expiration)", (unsigned long long)x);
    }
    printf("\n");
  }
  // A finite timeout longer than the timer's: the timer comes first.
  s = spec(100000000, 0);
  timerfd_settime(tfd, 0, &s, NULL);
  struct epoll_event out[4];
  const int n = epoll_wait(ep, out, 4, 5000);
  uint64_t x = 0;
  if (n == 1 && out[0].data.u32 == 2) read(tfd, &x, 8);
  printf("epoll with a 5 s timeout: %d event(s), timerfd %d, %llu expiration\n", n, n == 1 && out[0].data.u32 == 2,
         (unsigned long long)x);
  // Nothing armed: the timeout ends the wait.
  printf("epoll with nothing armed, 1 ms: %d\n", epoll_wait(ep, out, 4, 1));
  return 0;
}

static int hold[2];

static void* parked(void* arg) {
  (void)arg;
  char c;
  read(hold[0], &c, 1);
  return NULL;
}

// The status line `key` of /proc/self/status, or "".
static void status_line(const char* key, char* out, size_t size) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  out[0] = 0;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':') {
      snprintf(out, size, "%s", line + strlen(key) + 2);
      out[strcspn(out, "\n")] = 0;
    }
  if (f) fclose(f);
}

// /proc/self/status and stat: the program's pid, name, threads and signals.
static int mode_proc(void) {
  prctl(PR_SET_NAME, "ttd-timers");
  install(SIGUSR1);
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  sigprocmask(SIG_BLOCK, &block, NULL);
  signal(SIGPIPE, SIG_IGN);
  pipe(hold);
  pthread_t th[2];
  for (int i = 0; i < 2; ++i) pthread_create(&th[i], NULL, parked, NULL);
  char v[128];
  status_line("Name", v, sizeof v);
  printf("Name %s\n", v);
  status_line("Pid", v, sizeof v);
  printf("Pid is getpid %d\n", atol(v) == getpid());
  status_line("Tgid", v, sizeof v);
  printf("Tgid is getpid %d\n", atol(v) == getpid());
  status_line("Threads", v, sizeof v);
  printf("Threads %s\n", v);
  status_line("SigCgt", v, sizeof v);
  const unsigned long long cgt = strtoull(v, NULL, 16);
  status_line("SigBlk", v, sizeof v);
  const unsigned long long blk = strtoull(v, NULL, 16);
  status_line("SigIgn", v, sizeof v);
  const unsigned long long ign = strtoull(v, NULL, 16);
  printf("SigCgt has SIGUSR1 %d, SigBlk has SIGUSR2 %d, SigIgn has SIGPIPE %d\n", (int)((cgt >> (SIGUSR1 - 1)) & 1),
         (int)((blk >> (SIGUSR2 - 1)) & 1), (int)((ign >> (SIGPIPE - 1)) & 1));
  status_line("VmSize", v, sizeof v);
  printf("VmSize > 0 %d\n", atol(v) > 0);
  status_line("Uid", v, sizeof v);
  printf("Uid is getuid %d\n", atol(v) == (long)getuid());

  char buf[1024] = {0};
  int fd = open("/proc/self/stat", O_RDONLY);
  read(fd, buf, sizeof buf - 1);
  close(fd);
  long pid = atol(buf);
  char* after = strrchr(buf, ')');
  char state = after ? after[2] : '?';
  // Fields from 3 (state) on: field 20 is the 18th token after ')'.
  long field20 = -1;
  char* tok = after ? strtok(after + 2, " ") : NULL;
  for (int i = 3; tok && i <= 20; ++i, tok = strtok(NULL, " "))
    if (i == 20) field20 = atol(tok);
  printf("stat: field 1 is getpid %d, comm %.*s, state %c, field 20 %ld\n", pid == getpid(),
         after ? (int)(after - strchr(buf, '(') - 1) : 0, strchr(buf, '(') ? strchr(buf, '(') + 1 : "", state, field20);
  fd = open("/proc/self/statm", O_RDONLY);
  memset(buf, 0, sizeof buf);
  read(fd, buf, sizeof buf - 1);
  close(fd);
  printf("statm: size > 0 %d\n", atol(buf) > 0);
  snprintf(buf, sizeof buf, "/proc/%d/status", getpid());
  FILE* f = fopen(buf, "r");
  printf("/proc/<pid>/status opens %d\n", f != NULL);
  if (f) fclose(f);

  write(hold[1], "xx", 2);
  for (int i = 0; i < 2; ++i) pthread_join(th[i], NULL);
  /* pthread_join returns when the kernel clears the thread's tid, before
     the thread stops counting in Threads: natively the count right after
     the joins can still be 2 under load, so wait up to a second. */
  status_line("Threads", v, sizeof v);
  for (int tries = 0; strcmp(v, "1") != 0 && tries < 1000; ++tries) {
    usleep(1000);
    status_line("Threads", v, sizeof v);
  }
  printf("Threads after join %s\n", v);
  return 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char* mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "signal")) return mode_signal();
  if (!strcmp(mode, "thread_id")) return mode_thread_id();
  if (!strcmp(mode, "sigev_thread")) return mode_sigev_thread();
  if (!strcmp(mode, "timerfd")) return mode_timerfd();
  if (!strcmp(mode, "epoll")) return mode_epoll();
  if (!strcmp(mode, "proc")) return mode_proc();
  fprintf(stderr, "usage: timers signal|thread_id|sigev_thread|timerfd|epoll|proc\n");
  return 2;
}
