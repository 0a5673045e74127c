/* Interval timers under the recorder (docs/recording.md, "Timers"): one
   mode per argv[1], printing only what every native run prints.
   cpu:   ITIMER_VIRTUAL and ITIMER_PROF count CPU time, so a sleep does not
          bring them on, and spinning does;
   exec:  ITIMER_REAL and alarm survive execve, POSIX timers do not;
   fork:  a fork's child has none of its parent's interval or POSIX timers. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t vtalrm, prof;

static void on_signal(int sig) {
  if (sig == SIGVTALRM) ++vtalrm;
  if (sig == SIGPROF) ++prof;
}

static void arm(int which, long value_us, long interval_us) {
  struct itimerval v = {{interval_us / 1000000, interval_us % 1000000}, {value_us / 1000000, value_us % 1000000}};
  setitimer(which, &v, NULL);
}

static long left_us(int which) {
  struct itimerval v;
  getitimer(which, &v);
  return v.it_value.tv_sec * 1000000 + v.it_value.tv_usec;
}

/* A POSIX timer armed for 100 s; its kernel id (what syscall() takes). */
static int posix_timer(void) {
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_NONE;
  int id = -1;
  if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id) != 0) return -1;
  struct itimerspec s = {{0, 0}, {100, 0}};
  syscall(SYS_timer_settime, id, 0, &s, NULL);
  return id;
}

static int posix_timer_gone(int id) {
  struct itimerspec s;
  errno = 0;
  return syscall(SYS_timer_gettime, id, &s) == -1 && errno == EINVAL;
}

static int mode_cpu(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGVTALRM, &sa, NULL);
  sigaction(SIGPROF, &sa, NULL);
  /* 4 ms: the recorder counts a nanosecond of CPU time per step, and its
     self-check (--verify) replays each step, so the spin below is 4 M steps
     (20 ms took 27 s a variant under --verify). */
  arm(ITIMER_VIRTUAL, 4000, 0);
  arm(ITIMER_PROF, 4000, 0);
  struct timespec nap = {0, 200000000};
  int slept = nanosleep(&nap, NULL);
  printf("a 200 ms sleep: returned %d, SIGVTALRM %d, SIGPROF %d\n", slept, (int)vtalrm, (int)prof);
  printf("ITIMER_VIRTUAL left after the sleep > 2 ms: %d\n", left_us(ITIMER_VIRTUAL) > 2000);
  printf("ITIMER_PROF left after the sleep > 2 ms: %d\n", left_us(ITIMER_PROF) > 2000);
  for (volatile long spin = 0; (!vtalrm || !prof) && spin < 4000000000L; ++spin) {
  }
  printf("spinning: SIGVTALRM %d, SIGPROF %d\n", (int)vtalrm, (int)prof);
  return 0;
}

static int mode_exec(const char *self) {
  arm(ITIMER_REAL, 100000000, 0);
  const int id = posix_timer();
  char arg[32];
  snprintf(arg, sizeof arg, "%d", id);
  execl(self, self, "exec-child", arg, (char *)NULL);
  perror("execl");
  return 1;
}

static int mode_exec_child(int id) {
  const long left = left_us(ITIMER_REAL);
  printf("after execve: ITIMER_REAL kept %d\n", left > 90000000 && left <= 100000000);
  printf("after execve: the POSIX timer is gone %d\n", posix_timer_gone(id));
  printf("after execve: alarm(0) says %u\n", alarm(0));
  return 0;
}

static int mode_fork(void) {
  arm(ITIMER_REAL, 100000000, 0);
  arm(ITIMER_VIRTUAL, 100000000, 0);
  arm(ITIMER_PROF, 100000000, 0);
  const int id = posix_timer();
  const pid_t pid = fork();
  if (pid == 0) {
    const int code = (left_us(ITIMER_REAL) == 0) | (left_us(ITIMER_VIRTUAL) == 0) << 1 |
                     (left_us(ITIMER_PROF) == 0) << 2 | posix_timer_gone(id) << 3 | (alarm(0) == 0) << 4;
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const int c = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  printf("fork's child: ITIMER_REAL disarmed %d, ITIMER_VIRTUAL %d, ITIMER_PROF %d, POSIX timer gone %d, no alarm %d\n",
         c & 1, c >> 1 & 1, c >> 2 & 1, c >> 3 & 1, c >> 4 & 1);
  const long left = left_us(ITIMER_REAL);
  printf("the parent's ITIMER_REAL still runs %d, POSIX timer still there %d\n", left > 90000000,
         !posix_timer_gone(id));
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "cpu")) return mode_cpu();
  if (!strcmp(mode, "exec")) return mode_exec(argv[0]);
  if (!strcmp(mode, "exec-child")) return mode_exec_child(argc > 2 ? atoi(argv[2]) : -1);
  if (!strcmp(mode, "fork")) return mode_fork();
  fprintf(stderr, "usage: itimers cpu|exec|fork\n");
  return 2;
}
