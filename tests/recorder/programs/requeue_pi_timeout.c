// FUTEX_WAIT_REQUEUE_PI's timeouts, for test_requeue_pi_timeout.cpp: one
// that expires before any requeue (ETIMEDOUT, the PI lock not taken, the
// thread no longer waits on the condition word) and one that expires
// after FUTEX_CMP_REQUEUE_PI moved the thread to wait for the PI lock the
// signaller holds (ETIMEDOUT too, and the thread no longer waits for the
// lock: the signaller's FUTEX_UNLOCK_PI leaves it free). The timeout is
// absolute on CLOCK_MONOTONIC, as Linux takes it for this operation.
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// Linux's values (musl has no <linux/futex.h>).
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_UNLOCK_PI 7
#define FUTEX_WAIT_REQUEUE_PI 11
#define FUTEX_CMP_REQUEUE_PI 12
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_TID_MASK 0x3fffffffu

static uint32_t lock_word, cond_word, timed_out, may_exit;
static uint32_t main_tid;
static int waiter_errno;
static uint32_t waiter_saw_owner;

static long futex(uint32_t* addr, int op, uint32_t val, const struct timespec* ts, uint32_t* addr2, uint32_t val3) {
  return syscall(SYS_futex, addr, op | FUTEX_PRIVATE_FLAG, val, ts, addr2, val3);
}

static uint32_t tid(void) { return (uint32_t)syscall(SYS_gettid); }

static struct timespec deadline(long ms) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += (ms % 1000) * 1000000;
  if (ts.tv_nsec >= 1000000000) {
    ts.tv_sec += 1;
    ts.tv_nsec -= 1000000000;
  }
  return ts;
}

static void before_requeue(void) {
  lock_word = 0;
  cond_word = 7;
  struct timespec ts = deadline(20);
  long r = futex(&cond_word, FUTEX_WAIT_REQUEUE_PI, 7, &ts, &lock_word, 0);
  printf("before requeue: %ld errno %d, lock word %u\n", r, r < 0 ? errno : 0, lock_word);
  // Nobody waits on the condition word any more.
  r = futex(&cond_word, FUTEX_CMP_REQUEUE_PI, 1, (const struct timespec*)(uintptr_t)1, &lock_word, 7);
  printf("requeue after the timeout: %ld, lock word %u\n", r, lock_word);
}

static void* waiter(void* arg) {
  (void)arg;
  struct timespec ts = deadline(500);
  long r = futex(&cond_word, FUTEX_WAIT_REQUEUE_PI, 0, &ts, &lock_word, 0);
  waiter_errno = r < 0 ? errno : 0;
  waiter_saw_owner = __atomic_load_n(&lock_word, __ATOMIC_ACQUIRE) & FUTEX_TID_MASK;
  __atomic_store_n(&timed_out, 1, __ATOMIC_RELEASE);
  futex(&timed_out, FUTEX_WAKE, 1, NULL, NULL, 0);
  // Stays alive (not waiting for the lock) while the signaller unlocks.
  while (!__atomic_load_n(&may_exit, __ATOMIC_ACQUIRE)) futex(&may_exit, FUTEX_WAIT, 0, NULL, NULL, 0);
  return NULL;
}

static void after_requeue(void) {
  main_tid = tid();
  lock_word = main_tid;  // held by the signaller
  cond_word = 0;
  timed_out = may_exit = 0;
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  // Until the waiter was there to move: it then waits for the held lock.
  long moved;
  while ((moved = futex(&cond_word, FUTEX_CMP_REQUEUE_PI, 1, (const struct timespec*)(uintptr_t)1, &lock_word,
                        0)) == 0)
    sched_yield();
  printf("requeued: %ld, waiters bit %d\n", moved, (lock_word & 0x80000000u) != 0);
  while (!__atomic_load_n(&timed_out, __ATOMIC_ACQUIRE)) futex(&timed_out, FUTEX_WAIT, 0, NULL, NULL, 0);
  printf("after requeue: errno %d, owner is the signaller %d\n", waiter_errno, waiter_saw_owner == main_tid);
  // The lock's owner word still has FUTEX_WAITERS, so this goes to the
  // kernel, which has nobody to hand the lock to.
  uint32_t expected = main_tid;
  if (!__atomic_compare_exchange_n(&lock_word, &expected, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
    long r = futex(&lock_word, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
    printf("unlock_pi: %ld\n", r);
  }
  printf("lock word after unlock: %u\n", lock_word);
  __atomic_store_n(&may_exit, 1, __ATOMIC_RELEASE);
  futex(&may_exit, FUTEX_WAKE, 1, NULL, NULL, 0);
  pthread_join(t, NULL);
}

int main(void) {
  before_requeue();
  after_requeue();
  return 0;
}
