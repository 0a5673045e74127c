/* PI and robust mutexes under the recorder (test_lock_futex.cpp).
 *
 * "pi": three threads add to a counter under a PTHREAD_PRIO_INHERIT mutex
 * with work inside the lock, so under the recorder's quantum a thread is
 * switched out holding it and the others wait in FUTEX_LOCK_PI; then the
 * futex calls' answers for trylock on a held lock, unlock by a non-owner,
 * lock by the owner.
 * "robust" / "robust-pi": a thread takes a robust mutex (and PI, for
 * robust-pi) and exits holding it while the main thread waits for it: the
 * main thread gets EOWNERDEAD, makes it consistent, locks it again.
 * "hostile": threads exit with robust lists that loop or point at
 * unmapped memory; the loop's lock word is marked anyway.
 * "pi-deadlock": two PI mutexes locked in opposite orders (hangs natively). */
#define _GNU_SOURCE
#include <errno.h>
/* (not <linux/futex.h>: musl-gcc has no kernel headers) */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { FUTEX_LOCK_PI = 6, FUTEX_UNLOCK_PI = 7, FUTEX_TRYLOCK_PI = 8 };

static pthread_mutex_t lock;
static volatile long counter;
static volatile int taken;

static void* adder(void* arg) {
  (void)arg;
  for (int i = 0; i < 300; ++i) {
    pthread_mutex_lock(&lock);
    long v = counter;
    for (volatile int k = 0; k < 20; ++k) {}
    counter = v + 1;
    pthread_mutex_unlock(&lock);
  }
  return 0;
}

static long futex(uint32_t* w, int op) { return syscall(SYS_futex, w, op, 0, 0, 0, 0); }

static uint32_t raw_word;

static void* try_raw(void* arg) {
  (void)arg;
  long r = futex(&raw_word, FUTEX_TRYLOCK_PI);
  printf("trylock held: %ld errno %d\n", r, r < 0 ? errno : 0);
  r = futex(&raw_word, FUTEX_UNLOCK_PI);
  printf("unlock by non-owner: %ld errno %d\n", r, r < 0 ? errno : 0);
  return 0;
}

/* A timed lock (FUTEX_LOCK_PI2 with glibc: CLOCK_MONOTONIC; musl has no
   clocklock, its timedlock is FUTEX_LOCK_PI) of a PI mutex the main
   thread keeps: it times out. */
#ifdef __GLIBC__
#define TIMED_CLOCK CLOCK_MONOTONIC
#define TIMED_LOCK(m, abs) pthread_mutex_clocklock(m, CLOCK_MONOTONIC, abs)
#else
#define TIMED_CLOCK CLOCK_REALTIME
#define TIMED_LOCK(m, abs) pthread_mutex_timedlock(m, abs)
#endif
static void* clocklock_held(void* arg) {
  (void)arg;
  struct timespec abs;
  clock_gettime(TIMED_CLOCK, &abs);
  abs.tv_nsec += 20 * 1000 * 1000;
  if (abs.tv_nsec >= 1000000000) {
    abs.tv_sec += 1;
    abs.tv_nsec -= 1000000000;
  }
  int r = TIMED_LOCK(&lock, &abs);
  printf("clocklock held: %s\n", r == ETIMEDOUT ? "ETIMEDOUT" : strerror(r));
  return 0;
}

static int pi(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  if (pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT) != 0) return 2;
  pthread_mutex_init(&lock, &a);
  pthread_t t[3];
  for (int i = 0; i < 3; ++i) pthread_create(&t[i], 0, adder, 0);
  for (int i = 0; i < 3; ++i) pthread_join(t[i], 0);
  printf("counter %ld (expected 900)\n", counter);
  pthread_mutex_lock(&lock);
  pthread_t c;
  pthread_create(&c, 0, clocklock_held, 0);
  pthread_join(c, 0);
  pthread_mutex_unlock(&lock);

  raw_word = (uint32_t)syscall(SYS_gettid);
  long r = futex(&raw_word, FUTEX_LOCK_PI);
  printf("lock by owner: %ld errno %d\n", r, r < 0 ? errno : 0);
  pthread_t u;
  pthread_create(&u, 0, try_raw, 0);
  pthread_join(u, 0);
  r = futex(&raw_word, FUTEX_UNLOCK_PI);
  printf("unlock by owner: %ld word %u\n", r, raw_word);
  raw_word = 0;
  r = futex(&raw_word, FUTEX_TRYLOCK_PI);
  printf("trylock free: %ld owner is me %d\n", r, raw_word == (uint32_t)syscall(SYS_gettid));
  return 0;
}

static void* die_holding(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  taken = 1;
  /* Let the main thread start waiting (natively it sleeps; under the
     recorder sleeping takes no time, so yield to it). */
  for (int i = 0; i < 3; ++i) sched_yield();
  struct timespec ts = {0, 50 * 1000 * 1000};
  nanosleep(&ts, 0);
  return 0;  /* exits holding the lock */
}

static int robust(int with_pi) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  if (with_pi && pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT) != 0) return 2;
  pthread_mutex_init(&lock, &a);
  pthread_t t;
  pthread_create(&t, 0, die_holding, 0);
  while (!taken) sched_yield();
  int r = pthread_mutex_lock(&lock);
  printf("lock after the owner died: %s\n", r == EOWNERDEAD ? "EOWNERDEAD" : strerror(r));
  r = pthread_mutex_consistent(&lock);
  printf("consistent: %d\n", r);
  pthread_mutex_unlock(&lock);
  r = pthread_mutex_lock(&lock);
  printf("lock again: %d\n", r);
  pthread_mutex_unlock(&lock);
  pthread_join(t, 0);
  return 0;
}

/* struct robust_list_head as the kernel reads it. */
struct head {
  void* next;
  long futex_offset;
  void* pending;
};
static struct head loop_head, bad_head;
static void* loop_entry[2];
static uint32_t loop_word;

static void* hostile_loop(void* arg) {
  (void)arg;
  loop_word = (uint32_t)syscall(SYS_gettid);
  loop_entry[0] = loop_entry;  /* an entry whose next is itself */
  loop_head.next = loop_entry;
  loop_head.futex_offset = (char*)&loop_word - (char*)loop_entry;
  loop_head.pending = (void*)0x10;  /* unmapped */
  return (void*)syscall(SYS_set_robust_list, &loop_head, sizeof loop_head);
}

static void* hostile_unmapped(void* arg) {
  (void)arg;
  bad_head.next = (void*)0x7000;  /* unmapped */
  bad_head.futex_offset = 0;
  bad_head.pending = (void*)(uintptr_t)0xfffffffffffff000ull;
  return (void*)syscall(SYS_set_robust_list, &bad_head, sizeof bad_head);
}

static int hostile(void) {
  pthread_t t;
  void* rc;
  pthread_create(&t, 0, hostile_loop, 0);
  pthread_join(t, &rc);
  printf("looping list: set %ld, lock word 0x%x\n", (long)rc, loop_word);
  pthread_create(&t, 0, hostile_unmapped, 0);
  pthread_join(t, &rc);
  printf("unmapped list: set %ld\n", (long)rc);
  long r = syscall(SYS_set_robust_list, &bad_head, 7);
  printf("bad length: %ld errno %d\n", r, r < 0 ? errno : 0);
  return 0;
}

/* "pi-deadlock": two PI mutexes taken in opposite orders (hangs natively). */
static pthread_mutex_t second;

static void* lock_b_then_a(void* arg) {
  (void)arg;
  pthread_mutex_lock(&second);
  taken = 1;
  for (int i = 0; i < 3; ++i) sched_yield();
  pthread_mutex_lock(&lock);
  return 0;
}

static int pi_deadlock(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
  pthread_mutex_init(&lock, &a);
  pthread_mutex_init(&second, &a);
  pthread_mutex_lock(&lock);
  pthread_t t;
  pthread_create(&t, 0, lock_b_then_a, 0);
  while (!taken) sched_yield();
  pthread_mutex_lock(&second);
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "pi";
  if (strcmp(mode, "pi") == 0) return pi();
  if (strcmp(mode, "robust") == 0) return robust(0);
  if (strcmp(mode, "robust-pi") == 0) return robust(1);
  if (strcmp(mode, "hostile") == 0) return hostile();
  if (strcmp(mode, "pi-deadlock") == 0) return pi_deadlock();
  return 1;
}
