// FUTEX_WAIT_REQUEUE_PI / FUTEX_CMP_REQUEUE_PI (what a condition variable
// over a PI mutex can use) with raw futex calls, and a pthread condition
// variable over a PTHREAD_PRIO_INHERIT mutex, for the recorder tests
// (test_requeue_pi.cpp). Prints only what does not depend on how the
// threads interleave, so the native and recorded runs print the same bytes.
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

// Linux's values (musl has no <linux/futex.h>).
#define FUTEX_LOCK_PI 6
#define FUTEX_UNLOCK_PI 7
#define FUTEX_WAIT_REQUEUE_PI 11
#define FUTEX_CMP_REQUEUE_PI 12
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_TID_MASK 0x3fffffffu

enum { kWaiters = 3 };

static uint32_t lock_word, cond_word;
static int announced, finished, counter, wait_results[kWaiters];

static long futex(uint32_t* addr, int op, uint32_t val, long val2, uint32_t* addr2, uint32_t val3) {
  return syscall(SYS_futex, addr, op, val, val2, addr2, val3);
}

static uint32_t tid(void) { return (uint32_t)syscall(SYS_gettid); }

static void pi_lock(void) {
  uint32_t expected = 0;
  if (__atomic_compare_exchange_n(&lock_word, &expected, tid(), 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
  while (futex(&lock_word, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, 0, NULL, 0) != 0)
    if (errno != EINTR && errno != EAGAIN) perror("lock_pi");
}

static void pi_unlock(void) {
  uint32_t expected = tid();
  if (__atomic_compare_exchange_n(&lock_word, &expected, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) return;
  if (futex(&lock_word, FUTEX_UNLOCK_PI | FUTEX_PRIVATE_FLAG, 0, 0, NULL, 0) != 0) perror("unlock_pi");
}

static void* waiter(void* arg) {
  int index = (int)(intptr_t)arg;
  pi_lock();
  uint32_t seq = __atomic_load_n(&cond_word, __ATOMIC_ACQUIRE);
  __atomic_fetch_add(&announced, 1, __ATOMIC_ACQ_REL);
  pi_unlock();
  // Returns 0 owning lock_word, once requeued and given it.
  long r;
  while ((r = futex(&cond_word, FUTEX_WAIT_REQUEUE_PI | FUTEX_PRIVATE_FLAG, seq, 0, &lock_word, 0)) != 0) {
    if (errno != EAGAIN && errno != EINTR) break;
    seq = __atomic_load_n(&cond_word, __ATOMIC_ACQUIRE);
  }
  wait_results[index] = r == 0 ? 0 : errno;
  if (r == 0 && (__atomic_load_n(&lock_word, __ATOMIC_RELAXED) & FUTEX_TID_MASK) != tid())
    printf("waiter %d: returned 0 without the lock\n", index);
  ++counter;  // under the lock
  __atomic_fetch_add(&finished, 1, __ATOMIC_ACQ_REL);
  if (r == 0) pi_unlock();
  return NULL;
}

// Requeues until every waiter was woken or moved; the signaller holds the
// lock (all moved) or not (the first one takes it).
static void requeue_round(int hold) {
  lock_word = 0;
  cond_word = 0;
  announced = finished = counter = 0;
  pthread_t t[kWaiters];
  for (int i = 0; i < kWaiters; ++i) pthread_create(&t[i], NULL, waiter, (void*)(intptr_t)i);
  while (__atomic_load_n(&announced, __ATOMIC_ACQUIRE) < kWaiters) sched_yield();
  if (hold) pi_lock();
  long total = 0;
  int calls = 0;
  while (total < kWaiters) {
    long r = futex(&cond_word, FUTEX_CMP_REQUEUE_PI | FUTEX_PRIVATE_FLAG, 1, INT_MAX, &lock_word, 0);
    if (r < 0) {
      printf("cmp_requeue_pi: errno %d\n", errno);
      break;
    }
    total += r;
    ++calls;
    if (total < kWaiters) sched_yield();  // a waiter not in the kernel yet
  }
  if (hold) {
    printf("round hold: finished before unlock %d\n", __atomic_load_n(&finished, __ATOMIC_ACQUIRE));
    pi_unlock();
  }
  for (int i = 0; i < kWaiters; ++i) pthread_join(t[i], NULL);
  printf("round %s: woken or requeued %ld, counter %d, results %d %d %d, lock word %u\n", hold ? "hold" : "free", total,
         counter, wait_results[0], wait_results[1], wait_results[2], lock_word);
}

#define SHOW(label, expr)                        \
  do {                                           \
    long r_ = (long)(expr);                      \
    int e_ = r_ < 0 ? errno : 0;                 \
    printf("%s: %ld errno %d\n", label, r_, e_); \
  } while (0)

static void errors(void) {
  uint32_t a = 5, b = 0;
  SHOW("cmp_requeue_pi nr_wake 2", futex(&a, FUTEX_CMP_REQUEUE_PI, 2, 0, &b, 5));
  SHOW("cmp_requeue_pi same word", futex(&a, FUTEX_CMP_REQUEUE_PI, 1, 0, &a, 5));
  SHOW("cmp_requeue_pi changed", futex(&a, FUTEX_CMP_REQUEUE_PI, 1, 0, &b, 4));
  SHOW("cmp_requeue_pi no waiters", futex(&a, FUTEX_CMP_REQUEUE_PI, 1, 0, &b, 5));
  SHOW("wait_requeue_pi changed", futex(&a, FUTEX_WAIT_REQUEUE_PI, 4, 0, &b, 0));
  SHOW("wait_requeue_pi same word", futex(&a, FUTEX_WAIT_REQUEUE_PI, 5, 0, &a, 0));
  printf("lock word after %u\n", b);
}

static pthread_mutex_t mutex;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready_count, go;

static void* cond_waiter(void* arg) {
  (void)arg;
  pthread_mutex_lock(&mutex);
  ++ready_count;
  pthread_cond_broadcast(&cond);
  while (!go) pthread_cond_wait(&cond, &mutex);
  ++counter;
  pthread_mutex_unlock(&mutex);
  return NULL;
}

static void pthread_cond_pi(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  printf("setprotocol: %d\n", pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT));
  pthread_mutex_init(&mutex, &attr);
  counter = 0;
  pthread_t t[kWaiters];
  for (int i = 0; i < kWaiters; ++i) pthread_create(&t[i], NULL, cond_waiter, NULL);
  pthread_mutex_lock(&mutex);
  while (ready_count < kWaiters) pthread_cond_wait(&cond, &mutex);
  go = 1;
  pthread_cond_signal(&cond);
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&mutex);
  for (int i = 0; i < kWaiters; ++i) pthread_join(t[i], NULL);
  printf("pthread cond over a PI mutex: counter %d\n", counter);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  errors();
  requeue_round(0);
  requeue_round(1);
  pthread_cond_pi();
  return 0;
}
