// Which interrupted calls a SA_RESTART handler restarts (test_restarts.cpp):
// Linux restarts read, accept, recv and an untimed futex wait
// (ERESTARTSYS), always restarts FUTEX_LOCK_PI (ERESTARTNOINTR, even
// without SA_RESTART), and fails a futex wait with a timeout with EINTR
// whatever the flags (ERESTART_RESTARTBLOCK with a handler). Each mode
// arms a 100 ms ITIMER_REAL whose handler counts, blocks in the call, and
// a helper thread (SIGALRM blocked) ends the wait at 400 ms if the call
// went on. Until 2026-11-29 the recorder restarted the timed futex waits
// (they then timed out) and failed accept, recv and FUTEX_LOCK_PI with
// EINTR.
//   futex-timed    FUTEX_WAIT (relative) and FUTEX_WAIT_BITSET (absolute)
//   futex          an untimed FUTEX_WAIT, woken by the helper
//   accept         accept() of a loopback listener the helper connects to
//   recv           recv() of a socketpair the helper writes
//   lock-pi        FUTEX_LOCK_PI of a lock the helper holds, no SA_RESTART
//   accept-eintr   accept() without SA_RESTART: EINTR
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

// Linux's values (musl has no <linux/futex.h>).
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_LOCK_PI 6
#define FUTEX_UNLOCK_PI 7
#define FUTEX_WAIT_BITSET 9
#define FUTEX_PRIVATE_FLAG 128

static volatile int hits;
static void on_alarm(int sig) {
  (void)sig;
  hits++;
}

static void arm(int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = flags;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 0}, {0, 100000}};
  setitimer(ITIMER_REAL, &it, NULL);
}

static long futex(uint32_t* w, int op, uint32_t val, const struct timespec* ts, uint32_t bits) {
  return syscall(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, val, ts, NULL, bits);
}

static void report(const char* what, long r, int err) {
  printf("%s: %s, handler ran %d time(s)\n", what, r < 0 ? strerror(err) : "ok", hits);
  hits = 0;
}

static uint32_t word;
static int sock_fd = -1;
static int listen_port;
static const char* mode;

static pthread_barrier_t owned;

static void* helper(void* arg) {
  (void)arg;
  if (!strcmp(mode, "lock-pi")) {
    uint32_t tid = (uint32_t)syscall(SYS_gettid), free_word = 0;
    __atomic_compare_exchange_n(&word, &free_word, tid, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    pthread_barrier_wait(&owned);
  }
  struct timespec t = {0, 400000000};
  nanosleep(&t, NULL);
  if (!strcmp(mode, "futex")) {
    __atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
    futex(&word, FUTEX_WAKE, 1, NULL, 0);
  } else if (!strcmp(mode, "accept") || !strcmp(mode, "accept-eintr")) {
    int c = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(listen_port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    (void)!connect(c, (struct sockaddr*)&a, sizeof a);
    t.tv_nsec = 200000000;
    nanosleep(&t, NULL);
    close(c);
  } else if (!strcmp(mode, "recv")) {
    (void)!write(sock_fd, "x", 1);
  } else if (!strcmp(mode, "lock-pi")) {
    futex(&word, FUTEX_UNLOCK_PI, 0, NULL, 0);
  }
  return NULL;
}

static pthread_t start_helper(void) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &s, NULL);  // the helper never takes it
  pthread_t th;
  pthread_create(&th, NULL, helper, NULL);
  pthread_sigmask(SIG_UNBLOCK, &s, NULL);
  return th;
}

static int listener(void) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(l, (struct sockaddr*)&a, sizeof a) || listen(l, 1) || getsockname(l, (struct sockaddr*)&a, &len)) return -1;
  listen_port = ntohs(a.sin_port);
  return l;
}

int main(int argc, char** argv) {
  mode = argc > 1 ? argv[1] : "";
  long r;
  if (!strcmp(mode, "futex-timed")) {
    arm(SA_RESTART);
    struct timespec rel = {2, 0};
    r = futex(&word, FUTEX_WAIT, 0, &rel, 0);
    report("FUTEX_WAIT with a timeout", r, errno);
    arm(SA_RESTART);
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += 2;
    r = futex(&word, FUTEX_WAIT_BITSET, 0, &end, 0xffffffffu);
    report("FUTEX_WAIT_BITSET with an end", r, errno);
    return 0;
  }
  if (!strcmp(mode, "futex")) {
    pthread_t th = start_helper();
    arm(SA_RESTART);
    do r = futex(&word, FUTEX_WAIT, 0, NULL, 0);
    while (r == 0 && __atomic_load_n(&word, __ATOMIC_SEQ_CST) == 0);
    report("FUTEX_WAIT", r, errno);
    pthread_join(th, NULL);
    return 0;
  }
  if (!strcmp(mode, "accept") || !strcmp(mode, "accept-eintr")) {
    const int l = listener();
    if (l < 0) return perror("listener"), 1;
    pthread_t th = start_helper();
    arm(!strcmp(mode, "accept") ? SA_RESTART : 0);
    r = accept(l, NULL, NULL);
    report("accept", r, errno);
    pthread_join(th, NULL);
    return 0;
  }
  if (!strcmp(mode, "recv")) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) return perror("socketpair"), 1;
    sock_fd = sv[1];
    pthread_t th = start_helper();
    arm(SA_RESTART);
    char c;
    r = recv(sv[0], &c, 1, 0);
    report("recv", r, errno);
    pthread_join(th, NULL);
    return 0;
  }
  if (!strcmp(mode, "lock-pi")) {
    pthread_barrier_init(&owned, NULL, 2);
    pthread_t th = start_helper();
    pthread_barrier_wait(&owned);  // the helper holds the lock now
    arm(0);
    r = futex(&word, FUTEX_LOCK_PI, 0, NULL, 0);
    report("FUTEX_LOCK_PI", r, errno);
    pthread_join(th, NULL);
    return 0;
  }
  fprintf(stderr, "usage: restarts futex-timed|futex|accept|recv|lock-pi|accept-eintr\n");
  return 2;
}
