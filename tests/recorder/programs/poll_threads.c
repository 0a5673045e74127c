/* poll, ppoll, select and pselect6 under the recorder (test_poll_threads.cpp).
 *
 * Default mode: the main thread and a worker talk over two pipes in lock
 * step, the main thread waiting with poll, the worker with select, so
 * each waits for the other (under the recorder a new thread waits for its
 * turn, so the first poll finds the pipe empty); then a zero and a finite
 * timeout on an empty pipe, a regular file, stdout, and the hang-up the
 * worker sees when the main thread closes its pipe. Everything printed is
 * the same natively.
 *
 * "deadlock": the main thread polls and the worker selects on a pipe
 * nobody writes. "fifo PATH": poll on a FIFO opened by path. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int to_worker[2], to_main[2];
static const int kRounds = 5;

static void* worker(void* arg) {
  (void)arg;
  char buf[64];
  for (;;) {
    fd_set rd;
    FD_ZERO(&rd);
    FD_SET(to_worker[0], &rd);
    int n = select(to_worker[0] + 1, &rd, NULL, NULL, NULL);
    if (n != 1 || !FD_ISSET(to_worker[0], &rd)) return (void*)1;
    ssize_t got = read(to_worker[0], buf, sizeof buf - 1);
    if (got == 0) break;  /* the main thread closed its end */
    buf[got] = 0;
    fd_set wr;
    FD_ZERO(&wr);
    FD_SET(to_main[1], &wr);
    struct timeval tv = {5, 0};
    if (select(to_main[1] + 1, NULL, &wr, NULL, &tv) != 1) return (void*)2;
    char reply[80];
    int len = snprintf(reply, sizeof reply, "echo(%s)", buf);
    if (write(to_main[1], reply, (size_t)len) != len) return (void*)3;
  }
  /* After the hang-up: poll says POLLHUP alone (the pipe is empty). */
  struct pollfd p = {to_worker[0], POLLIN, 0};
  int n = poll(&p, 1, -1);
  printf("worker: after hang-up poll %d revents 0x%x\n", n, p.revents);
  return 0;
}

static void* deadlock_worker(void* arg) {
  int fd = *(int*)arg;
  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(fd, &rd);
  return (void*)(long)select(fd + 1, &rd, NULL, NULL, NULL);
}

int main(int argc, char** argv) {
  if (argc > 2 && strcmp(argv[1], "fifo") == 0) {
    int fd = open(argv[2], O_RDONLY | O_NONBLOCK);
    struct pollfd p = {fd, POLLIN, 0};
    int n = poll(&p, 1, 0);
    printf("fifo: poll %d errno %d\n", n, n < 0 ? errno : 0);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "deadlock") == 0) {
    static int fds[2];
    if (pipe(fds) != 0) return 2;
    pthread_t t;
    if (pthread_create(&t, 0, deadlock_worker, &fds[0]) != 0) return 3;
    struct pollfd p = {fds[0], POLLIN, 0};
    return poll(&p, 1, -1);
  }
  if (pipe(to_worker) != 0 || pipe(to_main) != 0) return 2;
  pthread_t t;
  if (pthread_create(&t, 0, worker, 0) != 0) return 3;
  char buf[128];
  for (int i = 0; i < kRounds; ++i) {
    int len = snprintf(buf, sizeof buf, "message %d", i);
    if (write(to_worker[1], buf, (size_t)len) != len) return 4;
    struct pollfd p = {to_main[0], POLLIN, 0};
    int n = poll(&p, 1, -1);
    ssize_t got = read(to_main[0], buf, sizeof buf - 1);
    buf[got > 0 ? got : 0] = 0;
    printf("main: poll %d revents 0x%x read \"%s\"\n", n, p.revents, buf);
  }

  /* Timeouts on a pipe nobody writes now (the worker waits in select). */
  struct pollfd empty = {to_main[0], POLLIN, 0};
  int n = poll(&empty, 1, 0);
  printf("poll timeout 0: %d revents 0x%x\n", n, empty.revents);
  n = poll(&empty, 1, 30);
  printf("poll timeout 30 ms: %d revents 0x%x\n", n, empty.revents);
  struct timespec ts = {0, 20 * 1000 * 1000};
  n = ppoll(&empty, 1, &ts, NULL);
  printf("ppoll 20 ms: %d left %ld.%09ld\n", n, (long)ts.tv_sec, ts.tv_nsec);
  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(to_main[0], &rd);
  struct timeval tv = {0, 10000};
  n = select(to_main[0] + 1, &rd, NULL, NULL, &tv);
  printf("select 10 ms: %d set %d left %ld.%06ld\n", n, FD_ISSET(to_main[0], &rd), (long)tv.tv_sec, (long)tv.tv_usec);
  FD_ZERO(&rd);
  FD_SET(to_main[0], &rd);
  struct timespec zero = {0, 0};
  n = pselect(to_main[0] + 1, &rd, NULL, NULL, &zero, NULL);
  printf("pselect timeout 0: %d\n", n);
  /* The raw calls write the time left back where the C library's wrappers
     pass a copy: 0 once the timeout expired. */
  FD_ZERO(&rd);
  FD_SET(to_main[0], &rd);
  struct timespec raw_ts = {0, 15 * 1000 * 1000};
  n = (int)syscall(SYS_pselect6, to_main[0] + 1, &rd, NULL, NULL, &raw_ts, NULL);
  printf("raw pselect6 15 ms: %d left %ld.%09ld\n", n, (long)raw_ts.tv_sec, raw_ts.tv_nsec);
  raw_ts.tv_nsec = 5 * 1000 * 1000;
  n = (int)syscall(SYS_ppoll, &empty, 1, &raw_ts, NULL, 8);
  printf("raw ppoll 5 ms: %d left %ld.%09ld\n", n, (long)raw_ts.tv_sec, raw_ts.tv_nsec);

  /* A regular file is always ready; so is stdout to write. */
  int file = open(argv[0], O_RDONLY);
  struct pollfd two[3] = {{file, POLLIN | POLLOUT, 0}, {1, POLLOUT, 0}, {-1, POLLIN, 0}};
  n = poll(two, 3, -1);
  printf("file and stdout: %d revents 0x%x 0x%x 0x%x\n", n, two[0].revents, two[1].revents, two[2].revents);
  /* A closed descriptor: POLLNVAL from poll, EBADF from select. */
  close(file);
  struct pollfd bad = {file, POLLIN, 0};
  n = poll(&bad, 1, 0);
  printf("closed fd: poll %d revents 0x%x\n", n, bad.revents);
  FD_ZERO(&rd);
  FD_SET(file, &rd);
  tv.tv_sec = 0;
  tv.tv_usec = 0;
  n = select(file + 1, &rd, NULL, NULL, &tv);
  printf("closed fd: select %d errno %d\n", n, n < 0 ? errno : 0);

  fflush(stdout);
  close(to_worker[1]);
  void* rc;
  pthread_join(t, &rc);
  printf("worker returned %ld\n", (long)rc);
  return 0;
}
