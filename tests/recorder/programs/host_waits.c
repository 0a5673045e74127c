// Timers and clocks while the program waits on the host (docs/recording.md,
// "Clocks" and "Timers"): a child that runs natively (exec of /bin/sleep,
// /bin/sh) is waited for with wait4 or through a pipe, and an alarm falls
// due first. Prints only what is the same in every native run.
//   wait4    alarm(1), wait4 for `sleep 5`: EINTR, then the child is killed
//   restart  the same with SA_RESTART: the handler kills the child, wait4 goes on
//   pipe     alarm(1), read a pipe the child writes after 3 s: EINTR
//   socket P alarm(1), read a TCP connection to 127.0.0.1:P that nobody writes: EINTR
//   fdread N alarm(1), read descriptor N (a pipe nobody writes, from the parent): EINTR
//   timed    wait4 for `sleep 0.3` lasts at least 0.3 s on CLOCK_MONOTONIC
//   clocks   which clock ids clock_gettime and clock_getres take
//   itimer   a periodic ITIMER_REAL, 5 expirations, at least 5 periods long
//   child-read   a fork's child (not recorded) arms a 200 ms ITIMER_REAL and
//            reads a pipe nobody writes: SIGALRM's default action ends it
//   child-write  the same, blocked writing a full pipe
//   child-recv   the same, blocked in recv of a socketpair nobody writes
//   child-accept the same, blocked in accept of a loopback listener
//   child-wait   the same, blocked in waitpid for a grandchild that sleeps
//            2 s; the parent sees the child end within 1 s
//   wait-stops   alarm(1) with a handler, waitpid(WUNTRACED) for a child
//            that sleeps 3 s: EINTR within 2 s (one thread: not parked)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms, victim;

static void on_alarm(int sig) {
  (void)sig;
  ++alarms;
  if (victim) kill(victim, SIGTERM);
}

static void handle_alarm(int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, NULL);
}

// A child running `argv` natively, its stdout on `out_fd` if not -1.
static pid_t spawn(char* const argv[], int out_fd, int close_fd) {
  fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    if (out_fd >= 0) dup2(out_fd, 1);
    if (close_fd >= 0) close(close_fd);
    execv(argv[0], argv);
    _exit(127);
  }
  return pid;
}

static const char* errname(int e) { return e == EINTR ? "EINTR" : e == ECHILD ? "ECHILD" : strerror(e); }

static void report_end(pid_t pid) {
  int st = 0;
  const pid_t r = waitpid(pid, &st, 0);
  if (r == pid && WIFSIGNALED(st)) printf("child killed by signal %d\n", WTERMSIG(st));
  else printf("child: waitpid %d, status %#x\n", (int)(r == pid), st);
}

static int mode_wait4(void) {
  char* argv[] = {"/bin/sleep", "5", NULL};
  const pid_t pid = spawn(argv, -1, -1);
  handle_alarm(0);
  alarm(1);
  int st = 0;
  errno = 0;
  const pid_t r = wait4(pid, &st, 0, NULL);
  printf("wait4: %d %s, alarms %d\n", (int)r, r < 0 ? errname(errno) : "-", (int)alarms);
  kill(pid, SIGKILL);
  report_end(pid);
  return 0;
}

static int mode_restart(void) {
  char* argv[] = {"/bin/sleep", "5", NULL};
  const pid_t pid = spawn(argv, -1, -1);
  victim = pid;
  handle_alarm(SA_RESTART);
  alarm(1);
  int st = 0;
  const pid_t r = wait4(pid, &st, 0, NULL);
  printf("wait4 restarted: returned the child %d, alarms %d\n", (int)(r == pid), (int)alarms);
  if (r == pid && WIFSIGNALED(st)) printf("child killed by signal %d\n", WTERMSIG(st));
  return 0;
}

static int mode_pipe(void) {
  int p[2];
  if (pipe(p) != 0) return 1;
  char* argv[] = {"/bin/sh", "-c", "sleep 3; echo late", NULL};
  const pid_t pid = spawn(argv, p[1], p[0]);
  close(p[1]);
  handle_alarm(0);
  alarm(1);
  char buf[16];
  errno = 0;
  const ssize_t n = read(p[0], buf, sizeof buf);
  printf("read: %d %s, alarms %d\n", (int)n, n < 0 ? errname(errno) : "-", (int)alarms);
  kill(pid, SIGKILL);
  report_end(pid);
  close(p[0]);
  return 0;
}

static int mode_socket(const char* port) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)atoi(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (s < 0 || connect(s, (struct sockaddr*)&a, sizeof a) != 0) {
    printf("connect failed: %s\n", strerror(errno));
    return 1;
  }
  handle_alarm(0);
  alarm(1);
  char buf[16];
  errno = 0;
  const ssize_t n = read(s, buf, sizeof buf);
  printf("read: %d %s, alarms %d\n", (int)n, n < 0 ? errname(errno) : "-", (int)alarms);
  close(s);
  return 0;
}

static int mode_fdread(const char* fd) {
  handle_alarm(0);
  alarm(1);
  char buf[16];
  errno = 0;
  const ssize_t n = read(atoi(fd), buf, sizeof buf);
  printf("read: %d %s, alarms %d\n", (int)n, n < 0 ? errname(errno) : "-", (int)alarms);
  return 0;
}

static double now_s(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int mode_timed(void) {
  char* argv[] = {"/bin/sleep", "0.3", NULL};
  const double t0 = now_s(CLOCK_MONOTONIC), r0 = now_s(CLOCK_REALTIME);
  const pid_t pid = spawn(argv, -1, -1);
  int st = 0;
  const pid_t r = waitpid(pid, &st, 0);
  const double t1 = now_s(CLOCK_MONOTONIC), r1 = now_s(CLOCK_REALTIME);
  printf("waitpid %d, exit %d\n", (int)(r == pid), WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  printf("monotonic: at least 0.3 s: %s, less than 5 s: %s\n", t1 - t0 >= 0.3 ? "yes" : "no",
         t1 - t0 < 5 ? "yes" : "no");
  printf("realtime: at least 0.3 s: %s\n", r1 - r0 >= 0.3 ? "yes" : "no");
  return 0;
}

static int mode_clocks(void) {
  // 10 (CLOCK_SGI_CYCLE) is gone; the _ALARM clocks (8, 9) need an RTC.
  printf("clock_gettime:");
  for (int c = -1; c <= 12; ++c) {
    struct timespec t;
    if (clock_gettime(c, &t) == 0) printf(" %d", c);
    else if (errno != EINVAL) printf(" %d:%s", c, strerror(errno));
  }
  printf("\nclock_getres:");
  for (int c = -1; c <= 12; ++c) {
    struct timespec t;
    if (clock_getres(c, &t) == 0) printf(" %d", c);
    else if (errno != EINVAL) printf(" %d:%s", c, strerror(errno));
  }
  printf("\n");
  struct timespec a, r;
  if (clock_gettime(8 /*CLOCK_REALTIME_ALARM*/, &a) == 0 && clock_gettime(CLOCK_REALTIME, &r) == 0) {
    const double d = (double)(r.tv_sec - a.tv_sec) + (double)(r.tv_nsec - a.tv_nsec) / 1e9;
    printf("REALTIME_ALARM within 1 s of REALTIME: %s\n", d > -1 && d < 1 ? "yes" : "no");
  }
  // CLOCK_REALTIME is from the epoch, MONOTONIC is not.
  printf("REALTIME after 2020: %s\n", now_s(CLOCK_REALTIME) > 1577836800 ? "yes" : "no");
  printf("TAI after 2020: %s\n", now_s(11) > 1577836800 ? "yes" : "no");
  return 0;
}

static int mode_itimer(void) {
  handle_alarm(0);
  const double t0 = now_s(CLOCK_MONOTONIC);
  struct itimerval it = {{0, 10000}, {0, 10000}};  // every 10 ms
  setitimer(ITIMER_REAL, &it, NULL);
  while (alarms < 5) pause();
  const double t1 = now_s(CLOCK_MONOTONIC);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  printf("expirations: at least 5: %s\n", alarms >= 5 ? "yes" : "no");
  printf("took at least 5 periods: %s\n", t1 - t0 >= 0.05 ? "yes" : "no");
  return 0;
}

// The child blocks in a read or write that only its own timer can end.
// Until 2026-11-29 it blocked in the host call, and the timer never came.
enum { kRead, kWrite, kRecv, kAccept };
static int mode_child_alarm(int how) {
  int p[2];
  if (pipe(p) != 0) return 1;
  const pid_t pid = fork();
  if (pid == 0) {
    const int write_side = how == kWrite;
    int sv[2] = {-1, -1}, l = -1;
    if (how == kRecv && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) _exit(2);
    if (how == kAccept) {
      struct sockaddr_in a;
      memset(&a, 0, sizeof a);
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      l = socket(AF_INET, SOCK_STREAM, 0);
      if (l < 0 || bind(l, (struct sockaddr*)&a, sizeof a) != 0 || listen(l, 1) != 0) _exit(2);
    }
    if (write_side) {
      const int fl = fcntl(p[1], F_GETFL);
      fcntl(p[1], F_SETFL, fl | O_NONBLOCK);
      static char chunk[4096];
      while (write(p[1], chunk, sizeof chunk) > 0) {
      }
      fcntl(p[1], F_SETFL, fl);
    }
    struct itimerval it = {{0, 0}, {0, 200000}};
    setitimer(ITIMER_REAL, &it, NULL);
    char c = 0;
    const ssize_t n = how == kWrite    ? write(p[1], &c, 1)
                      : how == kRecv   ? recv(sv[0], &c, 1, 0)
                      : how == kAccept ? accept(l, NULL, NULL)
                                       : read(p[0], &c, 1);
    printf("child's call returned %d\n", (int)n);
    _exit(0);
  }
  report_end(pid);
  return 0;
}

// Until 2026-11-29 the child blocked in wait4 on the host, and its timer
// fired only when the grandchild ended, 2 s later.
static int mode_child_wait(void) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const pid_t pid = fork();
  if (pid == 0) {
    const pid_t g = fork();
    if (g == 0) {
      close(1);  // not holding the test's stdout open
      close(2);
      struct timespec two = {2, 0};
      nanosleep(&two, NULL);
      _exit(0);
    }
    struct itimerval it = {{0, 0}, {0, 200000}};
    setitimer(ITIMER_REAL, &it, NULL);
    int st;
    waitpid(g, &st, 0);
    printf("child's wait returned\n");
    _exit(0);
  }
  report_end(pid);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("the child ended within 1 s: %d\n", s < 1.0);
  return 0;
}

static int mode_wait_stops(void) {
  const pid_t pid = fork();
  if (pid == 0) {
    close(1);
    sleep(3);
    _exit(0);
  }
  handle_alarm(0);
  alarm(1);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int st = 0;
  errno = 0;
  const pid_t r = waitpid(pid, &st, WUNTRACED);
  const int err = errno;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("waitpid: %d %s, alarms %d, within 2 s: %d\n", (int)r, r < 0 ? errname(err) : "-", (int)alarms,
         t1.tv_sec - t0.tv_sec < 2);
  kill(pid, SIGKILL);
  report_end(pid);
  return 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char* m = argc > 1 ? argv[1] : "";
  if (!strcmp(m, "wait4")) return mode_wait4();
  if (!strcmp(m, "restart")) return mode_restart();
  if (!strcmp(m, "pipe")) return mode_pipe();
  if (!strcmp(m, "timed")) return mode_timed();
  if (!strcmp(m, "socket") && argc > 2) return mode_socket(argv[2]);
  if (!strcmp(m, "fdread") && argc > 2) return mode_fdread(argv[2]);
  if (!strcmp(m, "clocks")) return mode_clocks();
  if (!strcmp(m, "itimer")) return mode_itimer();
  if (!strcmp(m, "child-read")) return mode_child_alarm(kRead);
  if (!strcmp(m, "child-write")) return mode_child_alarm(kWrite);
  if (!strcmp(m, "child-recv")) return mode_child_alarm(kRecv);
  if (!strcmp(m, "child-accept")) return mode_child_alarm(kAccept);
  if (!strcmp(m, "child-wait")) return mode_child_wait();
  if (!strcmp(m, "wait-stops")) return mode_wait_stops();
  fprintf(stderr, "usage: host_waits wait4|restart|pipe|socket PORT|fdread N|timed|clocks|itimer|child-read|child-write|child-recv|child-accept|child-wait|wait-stops\n");
  return 2;
}
