// epoll items after dup and close, and epoll sets inside epoll sets: the
// recorder must answer as Linux does (test_epoll_nest.cpp compares the
// output with a native run). Linux keys an item by (open file, fd number)
// and drops it only when the last descriptor of that open file closes
// (epoll(7), Q6); a set in a set is readable when its own ready list is
// not empty; loops and nesting deeper than 5 are ELOOP (epoll_ctl(2)).
// With the argument "deadlock" the only thread waits on an outer set
// whose inner set watches a pipe nobody writes.
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

static int add(int ep, int fd, uint32_t events, uint64_t data) {
  struct epoll_event ev;
  memset(&ev, 0, sizeof ev);
  ev.events = events;
  ev.data.u64 = data;
  return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static int del(int ep, int fd) { return epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL) < 0 ? -errno : 0; }

// "n 1: 100/0x1" for what a wait with timeout 0 reports.
static void show(const char* what, int ep) {
  struct epoll_event ev[8];
  int n = epoll_wait(ep, ev, 8, 0);
  printf("%s: n %d", what, n < 0 ? -errno : n);
  for (int i = 0; i < n; ++i) printf(" %llu/0x%x", (unsigned long long)ev[i].data.u64, ev[i].events);
  printf("\n");
}

static void dup_and_close(void) {
  int p[2];
  pipe(p);
  int ep = epoll_create1(0);
  printf("add pipe: %d\n", add(ep, p[0], EPOLLIN, 100));
  int d = dup(p[0]);
  close(p[0]);  // d still refers to the pipe: the item stays
  write(p[1], "x", 1);
  show("after dup+close", ep);
  printf("del closed fd: %d\n", del(ep, p[0]));  // EBADF: the fd is gone
  printf("del the dup: %d\n", del(ep, d));       // ENOENT: the item is (pipe, old fd)
  // The old number, reused for another pipe, is another item.
  int q[2];
  pipe(q);
  printf("reused number: %d, add: %d\n", q[0] == p[0], add(ep, q[0], EPOLLIN, 200));
  write(q[1], "y", 1);
  show("both", ep);
  close(d);  // the last descriptor of the first pipe's read end: its item goes
  show("after last close", ep);
  printf("del reused: %d\n", del(ep, q[0]));
  show("empty", ep);

  // An eventfd dup'd, the original replaced by dup2: still watched until
  // the dup goes too.
  int e = eventfd(0, 0);
  printf("add eventfd: %d\n", add(ep, e, EPOLLIN, 300));
  int e2 = dup(e);
  dup2(q[1], e);  // closes e's eventfd descriptor, not the last one
  uint64_t one = 1;
  write(e2, &one, 8);
  show("eventfd after dup2 over it", ep);
  dup2(q[1], e2);  // the last one
  show("eventfd gone", ep);

  // An epoll set whose first descriptor is closed keeps working by its dup.
  int ep2 = dup(ep);
  close(ep);
  write(q[1], "z", 1);
  printf("add via dup of set: %d\n", add(ep2, q[0], EPOLLIN, 400));
  show("set by its dup", ep2);
  close(ep2);
  close(q[0]);
  close(q[1]);
  close(p[1]);
}

static int inner_pipe[2];
static int inner_set, eventfd_for_ctl;

static void* writer(void* arg) {
  (void)arg;
  // Ends the main thread's wait on the outer set: a write to a pipe the
  // inner set watches.
  write(inner_pipe[1], "w", 1);
  return NULL;
}

static void* ctl_adder(void* arg) {
  (void)arg;
  add(inner_set, eventfd_for_ctl, EPOLLIN, 600);
  return NULL;
}

static void nested(void) {
  int inner = epoll_create1(0), outer = epoll_create1(0);
  pipe(inner_pipe);
  inner_set = inner;
  printf("add pipe to inner: %d\n", add(inner, inner_pipe[0], EPOLLIN, 1));
  printf("add inner to outer: %d\n", add(outer, inner, EPOLLIN, 2));
  printf("again: %d\n", add(outer, inner, EPOLLIN, 2));  // EEXIST
  show("outer, nothing ready", outer);
  write(inner_pipe[1], "a", 1);
  show("outer", outer);
  show("outer again (level)", outer);
  show("inner", inner);
  struct pollfd pf = {outer, POLLIN, 0};
  int polled = poll(&pf, 1, 0);
  printf("poll outer: %d revents 0x%x\n", polled, pf.revents);
  char c;
  read(inner_pipe[0], &c, 1);
  show("outer drained", outer);

  // The answers epoll_ctl(2) lists.
  printf("outer in itself: %d\n", add(outer, outer, EPOLLIN, 0));  // EINVAL
  int outer_dup = dup(outer);
  printf("outer's dup in outer: %d\n", add(outer, outer_dup, EPOLLIN, 0));  // EINVAL: the same file
  close(outer_dup);
  printf("outer in inner (a loop): %d\n", add(inner, outer, EPOLLIN, 0));  // ELOOP
  int other = epoll_create1(0);
  printf("exclusive set in a set: %d\n", add(other, inner, EPOLLIN | EPOLLEXCLUSIVE, 0));  // EINVAL
  close(other);

  // Edge-triggered on the outer set: once per write into the inner set's pipe.
  int et = epoll_create1(0);
  printf("add inner to et: %d\n", add(et, inner, EPOLLIN | EPOLLET, 3));
  write(inner_pipe[1], "b", 1);
  show("et", et);
  show("et again", et);
  write(inner_pipe[1], "c", 1);
  show("et after another write", et);
  read(inner_pipe[0], &c, 1);
  read(inner_pipe[0], &c, 1);
  close(et);

  // A thread waiting on the outer set wakes when the inner set's pipe is
  // written, and when an epoll_ctl makes the inner set ready.
  pthread_t th;
  pthread_create(&th, NULL, writer, NULL);
  struct epoll_event ev[4];
  int n = epoll_wait(outer, ev, 4, -1);
  printf("woken by a write: n %d data %llu\n", n, n > 0 ? (unsigned long long)ev[0].data.u64 : 0ull);
  pthread_join(th, NULL);
  read(inner_pipe[0], &c, 1);
  eventfd_for_ctl = eventfd(1, 0);
  pthread_create(&th, NULL, ctl_adder, NULL);
  n = epoll_wait(outer, ev, 4, -1);
  printf("woken by an epoll_ctl: n %d data %llu\n", n, n > 0 ? (unsigned long long)ev[0].data.u64 : 0ull);
  pthread_join(th, NULL);
  show("inner with the eventfd", inner);

  // Closing the inner set's last descriptor takes it out of the outer set.
  close(inner);
  show("outer after the inner set closed", outer);
  close(outer);
  close(eventfd_for_ctl);
  close(inner_pipe[0]);
  close(inner_pipe[1]);
}

// Chains of sets, each in the next: how deep can they go?
static void depth(void) {
  int e[8];
  for (int i = 0; i < 8; ++i) e[i] = epoll_create1(0);
  // e[i+1] in e[i], from the top down.
  printf("top down:");
  for (int i = 0; i < 7; ++i) printf(" %d", add(e[i], e[i + 1], EPOLLIN, 0));
  printf("\n");
  for (int i = 0; i < 8; ++i) close(e[i]);
  for (int i = 0; i < 8; ++i) e[i] = epoll_create1(0);
  printf("bottom up:");
  for (int i = 6; i >= 0; --i) printf(" %d", add(e[i], e[i + 1], EPOLLIN, 0));
  printf("\n");
  // Joining two chains of 3 (6 sets) in the middle.
  for (int i = 0; i < 8; ++i) close(e[i]);
  for (int i = 0; i < 8; ++i) e[i] = epoll_create1(0);
  printf("join:");
  printf(" %d %d %d %d", add(e[0], e[1], EPOLLIN, 0), add(e[1], e[2], EPOLLIN, 0), add(e[3], e[4], EPOLLIN, 0),
         add(e[4], e[5], EPOLLIN, 0));
  printf(" %d", add(e[2], e[3], EPOLLIN, 0));
  printf(" %d", add(e[6], e[4], EPOLLIN, 0));
  printf("\n");
  for (int i = 0; i < 8; ++i) close(e[i]);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "deadlock") == 0) {
    int inner = epoll_create1(0), outer = epoll_create1(0), p[2];
    pipe(p);
    add(inner, p[0], EPOLLIN, 1);
    add(outer, inner, EPOLLIN, 2);
    struct epoll_event ev;
    return epoll_wait(outer, &ev, 1, -1);
  }
  dup_and_close();
  nested();
  depth();
  return 0;
}
