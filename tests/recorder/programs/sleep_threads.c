// A sleeping thread gives way to the others, as natively (issue 16;
// docs/recording.md, "Clocks"). Prints only what is the same in every
// native run. Modes:
//   worker  main sleeps 50 ms (nanosleep) while a worker counts; main then
//           says whether the worker ran during the sleep (it ran natively;
//           before, the recorder's clock jumped over the sleep and the
//           worker ran only after it). The worker stops by itself after
//           300,000 rounds, so the recording stays small (natively it is
//           still counting, or done, when main wakes: both print 1).
//   short   once the worker counts, main sleeps 1 ms (clock_nanosleep):
//           recorded, the clock passes the sleep's end during the worker's
//           steps, and main runs again at the next thread switch.
//   alarm   with a worker parked in a pipe read: an interval timer's
//           SIGALRM with a handler ends a 1 s sleep after 200 ms with
//           EINTR and about 800 ms in rem; ignored, it does not; a
//           TIMER_ABSTIME sleep ends at its time. (Wide margins: the
//           native run must print the same on a loaded machine.)
//   both    two threads sleep: the worker's 10 ms sleep ends during main's
//           150 ms one, its 300 ms one after.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile int stop, early, late;
static volatile long count;
static volatile int alarms;
static int pipe_fds[2];

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void* counter(void* arg) {
  (void)arg;
  while (!stop && count < 300000) count++;
  return NULL;
}

static void* reader(void* arg) {
  (void)arg;
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &s, NULL);  // the alarms are main's
  char c;
  return read(pipe_fds[0], &c, 1) == 1 ? NULL : (void*)1;
}

static void* two_sleeps(void* arg) {
  (void)arg;
  struct timespec t = {0, 10000000};
  nanosleep(&t, NULL);
  early = 1;
  t.tv_nsec = 300000000;
  nanosleep(&t, NULL);
  late = 1;
  return NULL;
}

static void on_alarm(int sig) {
  (void)sig;
  alarms++;
}

static void arm(long ms) {
  struct itimerval v;
  memset(&v, 0, sizeof v);
  v.it_value.tv_usec = ms * 1000;
  setitimer(ITIMER_REAL, &v, NULL);
}

static int run_worker(long ms, int clock_call) {
  pthread_t t;
  pthread_create(&t, NULL, counter, NULL);
  if (clock_call)
    while (count == 0) sched_yield();
  const uint64_t start = now_ns();
  struct timespec d = {0, ms * 1000000};
  int r = clock_call ? clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL) : nanosleep(&d, NULL);
  const uint64_t slept = now_ns() - start;
  const int ran = count > 0;
  stop = 1;
  pthread_join(t, NULL);
  printf("sleep: %d\n", r);
  printf("worker ran during the sleep: %d\n", ran);
  printf("slept at least %ld ms: %d\n", ms, slept >= (uint64_t)ms * 1000000);
  return 0;
}

static int run_alarm(void) {
  if (pipe(pipe_fds) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, NULL);
  arm(200);
  struct timespec d = {1, 0}, rem = {0, 0};
  int r = nanosleep(&d, &rem);
  const int e = errno;
  const long left = rem.tv_sec * 1000000000L + rem.tv_nsec;
  printf("sleep: %d %s, alarms %d, rem in (600, 801] ms: %d\n", r, r ? strerror(e) : "", alarms,
         left > 600000000L && left <= 801000000L);
  signal(SIGALRM, SIG_IGN);
  arm(20);
  d.tv_sec = 0;
  d.tv_nsec = 50000000;
  const uint64_t start = now_ns();
  r = nanosleep(&d, NULL);
  printf("ignored alarm: sleep %d, slept at least 50 ms: %d\n", r, now_ns() - start >= 50000000u);
  struct timespec at;
  clock_gettime(CLOCK_MONOTONIC, &at);
  at.tv_nsec += 30000000;
  if (at.tv_nsec >= 1000000000) at.tv_sec++, at.tv_nsec -= 1000000000;
  r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
  struct timespec after;
  clock_gettime(CLOCK_MONOTONIC, &after);
  printf("absolute sleep: %d, woke at or after its time: %d\n", r,
         after.tv_sec > at.tv_sec || (after.tv_sec == at.tv_sec && after.tv_nsec >= at.tv_nsec));
  if (write(pipe_fds[1], "x", 1) != 1) return 1;
  void* res;
  pthread_join(t, &res);
  printf("reader: %s\n", res ? "failed" : "read its byte");
  return 0;
}

static int run_both(void) {
  pthread_t t;
  pthread_create(&t, NULL, two_sleeps, NULL);
  struct timespec d = {0, 150000000};
  nanosleep(&d, NULL);
  printf("after main's 150 ms: worker's 10 ms sleep over %d, its 300 ms one %d\n", early, late);
  pthread_join(t, NULL);
  printf("joined: %d %d\n", early, late);
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "worker";
  if (!strcmp(mode, "worker")) return run_worker(50, 0);
  if (!strcmp(mode, "short")) return run_worker(1, 1);
  if (!strcmp(mode, "alarm")) return run_alarm();
  if (!strcmp(mode, "both")) return run_both();
  fprintf(stderr, "unknown mode %s\n", mode);
  return 2;
}
