// eventfd and epoll between threads, for the recorder tests
// (test_eventfd_epoll.cpp). Prints only what does not depend on how the
// threads interleave, so the native run and the recorded one print the
// same bytes. "deadlock": the only thread waits in epoll on a pipe
// nobody writes.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

static int counter_fd, pipe_fds[2], done_fd;

// The call first, then errno (printf's arguments have no order).
#define SHOW(label, expr)                                  \
  do {                                                     \
    long r_ = (long)(expr);                                \
    int e_ = r_ < 0 ? errno : 0;                           \
    printf("%s: %ld errno %d\n", label, r_, e_);           \
  } while (0)
enum { kMessages = 6 };

static void* eventfd_worker(void* arg) {
  (void)arg;
  // The main thread waits in read (counter 0) until this write.
  for (uint64_t v = 1; v <= 4; ++v) {
    uint64_t x = v;
    if (write(counter_fd, &x, 8) != 8) perror("worker write");
    // Waits until the main thread took it (a blocking read of done_fd).
    uint64_t ack;
    if (read(done_fd, &ack, 8) != 8) perror("worker read");
  }
  return NULL;
}

static void eventfd_between_threads(void) {
  counter_fd = eventfd(0, EFD_CLOEXEC);
  done_fd = eventfd(0, 0);
  pthread_t t;
  pthread_create(&t, NULL, eventfd_worker, NULL);
  uint64_t sum = 0;
  for (int i = 0; i < 4; ++i) {
    uint64_t v = 0;
    ssize_t n = read(counter_fd, &v, 8);
    sum += v;
    printf("eventfd: read %zd value %llu\n", n, (unsigned long long)v);
    uint64_t one = 1;
    write(done_fd, &one, 8);
  }
  pthread_join(t, NULL);
  printf("eventfd: sum %llu\n", (unsigned long long)sum);
  close(counter_fd);
  close(done_fd);
}

static void eventfd_rules(void) {
  int fd = eventfd(3, EFD_SEMAPHORE | EFD_NONBLOCK);
  uint64_t v = 0;
  for (int i = 0; i < 4; ++i) {
    ssize_t n = read(fd, &v, 8);
    printf("semaphore: read %zd errno %d value %llu\n", n, n < 0 ? errno : 0, (unsigned long long)v);
  }
  char small[4];
  SHOW("short read", read(fd, small, 4));
  uint64_t big = ~0ull;
  SHOW("write max", write(fd, &big, 8));
  big = 0xfffffffffffffffeull;
  printf("write limit %zd\n", write(fd, &big, 8));
  uint64_t one = 1;
  SHOW("write past limit", write(fd, &one, 8));
  struct pollfd p = {fd, POLLIN | POLLOUT, 0};
  int pr = poll(&p, 1, 0);
  printf("poll full: %d revents 0x%x\n", pr, p.revents);
  close(fd);
  fd = eventfd(0, 0);
  p.fd = fd;
  pr = poll(&p, 1, 0);
  printf("poll empty: %d revents 0x%x\n", pr, p.revents);
  printf("fcntl nonblock: %d\n", fcntl(fd, F_SETFL, O_NONBLOCK));
  SHOW("read nonblocking", read(fd, &v, 8));
  printf("getfl nonblock %d\n", (fcntl(fd, F_GETFL) & O_NONBLOCK) != 0);
  close(fd);
  SHOW("eventfd bad flags", eventfd(0, 0x10));
}

static void* epoll_worker(void* arg) {
  (void)arg;
  for (int i = 0; i < kMessages; ++i) {
    char msg[32];
    int len = snprintf(msg, sizeof msg, "message %d;", i);
    write(pipe_fds[1], msg, (size_t)len);
    uint64_t one = 1;
    write(counter_fd, &one, 8);
    // One message at a time: the main thread says when it took it.
    uint64_t ack;
    read(done_fd, &ack, 8);
  }
  close(pipe_fds[1]);
  return NULL;
}

static void epoll_loop(void) {
  pipe(pipe_fds);
  counter_fd = eventfd(0, EFD_NONBLOCK);
  done_fd = eventfd(0, 0);
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 0x1111};
  epoll_ctl(ep, EPOLL_CTL_ADD, pipe_fds[0], &ev);
  ev.data.u64 = 0x2222;
  epoll_ctl(ep, EPOLL_CTL_ADD, counter_fd, &ev);
  pthread_t t;
  pthread_create(&t, NULL, epoll_worker, NULL);
  char text[512] = "";
  size_t got = 0;
  uint64_t events_total = 0;
  int hangup = 0, pipe_part = 0, counter_part = 0;
  while (!hangup || events_total < kMessages) {
    struct epoll_event out[4];
    int n = epoll_wait(ep, out, 4, -1);
    if (n <= 0) {
      SHOW("epoll_wait", n);
      break;
    }
    for (int i = 0; i < n; ++i) {
      if (out[i].data.u64 == 0x1111) {
        ssize_t r = read(pipe_fds[0], text + got, sizeof text - 1 - got);
        if (r > 0) got += (size_t)r;
        if (r == 0) hangup = 1;
        if (r > 0) ++pipe_part;
      } else if (out[i].data.u64 == 0x2222) {
        uint64_t v = 0;
        if (read(counter_fd, &v, 8) == 8) {
          events_total += v;
          ++counter_part;
          uint64_t one = 1;
          write(done_fd, &one, 8);
        }
      }
    }
  }
  text[got] = 0;
  pthread_join(t, NULL);
  printf("epoll loop: text \"%s\" counter %llu hangup %d\n", text, (unsigned long long)events_total, hangup);
  printf("epoll loop: counter reads %d, pipe reads > 0 %d\n", counter_part, pipe_part > 0);
  close(ep);
  close(pipe_fds[0]);
  close(counter_fd);
  close(done_fd);
}

static void epoll_rules(const char* file) {
  int ep = epoll_create1(0);
  int fds[2];
  pipe(fds);
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 7}, out[4];
  int f = open(file, O_RDONLY);
  SHOW("add file", epoll_ctl(ep, EPOLL_CTL_ADD, f, &ev));
  close(f);
  SHOW("add self", epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev));
  SHOW("add to a pipe", epoll_ctl(fds[0], EPOLL_CTL_ADD, fds[1], &ev));
  SHOW("mod missing", epoll_ctl(ep, EPOLL_CTL_MOD, fds[0], &ev));
  SHOW("del missing", epoll_ctl(ep, EPOLL_CTL_DEL, fds[0], &ev));
  printf("add: %d\n", epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev));
  SHOW("add again", epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev));
  SHOW("bad fd", epoll_ctl(ep, EPOLL_CTL_ADD, 999, &ev));
  SHOW("wait maxevents 0", epoll_wait(ep, out, 0, 0));
  SHOW("wait on a pipe", epoll_wait(fds[0], out, 4, 0));
  printf("wait nothing ready: %d\n", epoll_wait(ep, out, 4, 0));
  printf("wait 30 ms: %d\n", epoll_wait(ep, out, 4, 30));
  // Level-triggered: reported while readable.
  write(fds[1], "ab", 2);
  int n = 0;
  for (int i = 0; i < 2; ++i) {
    n = epoll_wait(ep, out, 4, 0);
    printf("level %d: %d events 0x%x data %llu\n", i, n, n > 0 ? out[0].events : 0, (unsigned long long)out[0].data.u64);
  }
  // Edge-triggered: once per change.
  ev.events = EPOLLIN | EPOLLET;
  ev.data.u64 = 8;
  printf("mod et: %d\n", epoll_ctl(ep, EPOLL_CTL_MOD, fds[0], &ev));
  printf("edge first: %d\n", epoll_wait(ep, out, 4, 0));
  printf("edge again: %d\n", epoll_wait(ep, out, 4, 0));
  write(fds[1], "c", 1);
  n = epoll_wait(ep, out, 4, 0);
  printf("edge after write: %d data %llu\n", n, (unsigned long long)out[0].data.u64);
  printf("edge again: %d\n", epoll_wait(ep, out, 4, 0));
  // One-shot: once, then not until MOD.
  ev.events = EPOLLIN | EPOLLONESHOT;
  ev.data.u64 = 9;
  epoll_ctl(ep, EPOLL_CTL_MOD, fds[0], &ev);
  printf("oneshot first: %d\n", epoll_wait(ep, out, 4, 0));
  printf("oneshot again: %d\n", epoll_wait(ep, out, 4, 0));
  epoll_ctl(ep, EPOLL_CTL_MOD, fds[0], &ev);
  printf("oneshot after mod: %d\n", epoll_wait(ep, out, 4, 0));
  // Write end and stdout: writable; maxevents 1 goes round the ready ones
  // in the order they were added.
  printf("del: %d\n", epoll_ctl(ep, EPOLL_CTL_DEL, fds[0], NULL));
  int evfd = eventfd(1, 0);
  ev.events = EPOLLIN;
  ev.data.u64 = 30;
  epoll_ctl(ep, EPOLL_CTL_ADD, evfd, &ev);
  ev.events = EPOLLOUT;
  ev.data.u64 = 10;
  epoll_ctl(ep, EPOLL_CTL_ADD, fds[1], &ev);
  ev.data.u64 = 20;
  epoll_ctl(ep, EPOLL_CTL_ADD, 1, &ev);
  for (int i = 0; i < 4; ++i) {
    n = epoll_wait(ep, out, 1, 0);
    printf("round %d: %d events 0x%x data %llu\n", i, n, out[0].events, (unsigned long long)out[0].data.u64);
  }
  // poll on the epoll fd: readable when something in it is ready.
  struct pollfd p = {ep, POLLIN, 0};
  int pr = poll(&p, 1, 0);
  printf("poll epoll: %d revents 0x%x\n", pr, p.revents);
  // A closed descriptor leaves the set; the read end's hang-up.
  close(fds[1]);
  close(evfd);
  ev.events = EPOLLIN;
  ev.data.u64 = 40;
  epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev);
  epoll_ctl(ep, EPOLL_CTL_DEL, 1, NULL);
  n = epoll_wait(ep, out, 4, 0);
  printf("hang-up: %d events 0x%x data %llu\n", n, out[0].events, (unsigned long long)out[0].data.u64);
  close(fds[0]);
  printf("empty set: %d\n", epoll_wait(ep, out, 4, 0));
  // musl's epoll_create takes 0 (it calls epoll_create1), glibc's says
  // EINVAL; the fd number depends on what the test runner left open.
  int made = epoll_create(0);
  printf("epoll_create 0: %s errno %d\n", made >= 0 ? "a descriptor" : "-1", made >= 0 ? 0 : errno);
  if (made >= 0) close(made);
  close(ep);
}

static int shared_ep;

static void* adder(void* arg) {
  (void)arg;
  int fd = eventfd(5, 0);
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 55};
  epoll_ctl(shared_ep, EPOLL_CTL_ADD, fd, &ev);
  return NULL;
}

// The main thread waits on an empty set; another thread's epoll_ctl adds
// a ready eventfd to it, which ends the wait (as Linux's wake-up on ADD).
static void epoll_ctl_from_another_thread(void) {
  shared_ep = epoll_create1(0);
  pthread_t t;
  pthread_create(&t, NULL, adder, NULL);
  struct epoll_event out[2];
  int n = epoll_wait(shared_ep, out, 2, -1);
  printf("added by another thread: %d data %llu\n", n, (unsigned long long)out[0].data.u64);
  pthread_join(t, NULL);
  close(shared_ep);
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc > 1 && strcmp(argv[1], "deadlock") == 0) {
    int fds[2];
    pipe(fds);
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN}, out[1];
    epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev);
    return epoll_wait(ep, out, 1, -1);
  }
  eventfd_between_threads();
  eventfd_rules();
  epoll_loop();
  epoll_rules(argv[0]);
  epoll_ctl_from_another_thread();
  return 0;
}
