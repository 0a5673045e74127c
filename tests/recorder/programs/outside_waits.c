// Waits on descriptors another process makes ready (issue 16;
// docs/recording.md, "Clocks" and "Threads"): the host's stdin, a FIFO
// opened by path. The test (cli_outside_waits.py) writes to them late,
// natively and recorded, and compares what this prints. Modes:
//   poll_stdin       poll, select and epoll_wait on stdin with 100 ms
//                    timeouts find nothing (the test writes 800 ms after
//                    this prints "waiting";
//                    before, the recorder said stdin was always ready),
//                    then poll without a timeout waits for the line.
//   poll_fifo PATH   the same on a FIFO opened by path (before: -ENOSYS).
//   read_thread      a thread blocks in read(2) of stdin while a worker
//                    computes and main prints its result; the test writes
//                    the line only once it has read that result (before,
//                    the read blocked every thread: the result never came).
//   readv_thread     the same with readv.
//   stdout_full      a thread writes 1 MiB to stdout (a pipe the test
//                    does not read yet) while main computes and says
//                    "main done" on stderr; the test reads stdout only
//                    after that line (before, the write to the full pipe
//                    blocked every thread: the line never came).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/uio.h>
#include <unistd.h>

static char line[64];
static int use_readv;

static void show(const char* what, int r) {
  if (r < 0)
    printf("%s: -1 %s\n", what, strerror(errno));
  else
    printf("%s: %d\n", what, r);
}

static int read_line(int fd) {
  ssize_t n = read(fd, line, sizeof line - 1);
  if (n < 0) return -1;
  line[n] = 0;
  char* nl = strchr(line, '\n');
  if (nl) *nl = 0;
  return (int)n;
}

static int poll_then_read(int fd) {
  printf("waiting\n");  // the test writes LATE s after this line
  struct pollfd p = {fd, POLLIN, 0};
  show("poll, 100 ms", poll(&p, 1, 100));
  fd_set in;
  FD_ZERO(&in);
  FD_SET(fd, &in);
  struct timeval tv = {0, 100000};
  show("select, 100 ms", select(fd + 1, &in, NULL, NULL, &tv));
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 7};
  show("epoll_ctl", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
  struct epoll_event out;
  show("epoll_wait, 100 ms", epoll_wait(ep, &out, 1, 100));
  show("epoll_wait", epoll_wait(ep, &out, 1, -1));
  printf("epoll data %u, EPOLLIN %d\n", out.data.u32, (out.events & EPOLLIN) != 0);
  p.revents = 0;
  show("poll", poll(&p, 1, -1));
  printf("revents POLLIN %d\n", (p.revents & POLLIN) != 0);
  show("read", read_line(fd));
  printf("line: %s\n", line);
  return 0;
}

static void* reader(void* arg) {
  (void)arg;
  if (!use_readv) return read_line(0) > 0 ? NULL : (void*)1;
  char a[4], b[60];
  struct iovec v[2] = {{a, sizeof a}, {b, sizeof b - 1}};
  ssize_t n = readv(0, v, 2);
  if (n <= 0) return (void*)1;
  memcpy(line, a, n < 4 ? (size_t)n : 4);
  if (n > 4) memcpy(line + 4, b, (size_t)n - 4);
  line[n] = 0;
  char* nl = strchr(line, '\n');
  if (nl) *nl = 0;
  return NULL;
}

static long sum;
static void* worker(void* arg) {
  (void)arg;
  for (long i = 1; i <= 100000; ++i) sum += i;
  return NULL;
}

static int read_thread(void) {
  pthread_t r, w;
  pthread_create(&r, NULL, reader, NULL);
  pthread_create(&w, NULL, worker, NULL);
  pthread_join(w, NULL);
  printf("worker: %ld\n", sum);
  fflush(stdout);
  void* res;
  pthread_join(r, &res);
  printf("reader: %s\n", res ? "failed" : line);
  return 0;
}

static void* big_writer(void* arg) {
  (void)arg;
  static char block[65536];
  memset(block, 'x', sizeof block);
  for (int i = 0; i < 16; ++i)
    if (write(1, block, sizeof block) != (ssize_t)sizeof block) return (void*)1;
  return NULL;
}

static int stdout_full(void) {
  pthread_t w;
  pthread_create(&w, NULL, big_writer, NULL);
  pthread_t c;
  pthread_create(&c, NULL, worker, NULL);
  pthread_join(c, NULL);
  fprintf(stderr, "main done: %ld\n", sum);
  void* res;
  pthread_join(w, &res);
  return res ? 1 : 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char* mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "poll_stdin")) return poll_then_read(0);
  if (!strcmp(mode, "poll_fifo") && argc > 2) {
    // Non-blocking open: a FIFO's open for reading waits for a writer.
    const int fd = open(argv[2], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return 1;
    fcntl(fd, F_SETFL, 0);
    return poll_then_read(fd);
  }
  if (!strcmp(mode, "read_thread")) return read_thread();
  if (!strcmp(mode, "readv_thread")) return use_readv = 1, read_thread();
  if (!strcmp(mode, "stdout_full")) return stdout_full();
  fprintf(stderr, "unknown mode\n");
  return 2;
}
