/* Threads for the recorder's tests: three workers share a counter under a
 * mutex, and a consumer takes 200 items from the main thread through a
 * one-slot buffer guarded by a condition variable (so threads block on
 * futexes and wake each other). What it prints does not depend on how the
 * threads are interleaved, so a recording's output equals the native run's.
 * Other modes (argv[1]): "deadlock" (two threads wait for each other),
 * "main-exits" (the main thread ends first, a worker finishes the process),
 * "fork" and "exec" (a new process, which the recorder follows, and an
 * exec of the recorded process itself, recorded into a second trace). */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static long counter;
static int slot, slot_full, done;
static long consumed_sum;
static __thread long tls_steps; /* per-thread (FS base / TPIDR_EL0) */
static long tids_distinct;

static void* worker(void* arg) {
  long id = (long)arg;
  for (int i = 0; i < 3000; ++i) {
    pthread_mutex_lock(&lock);
    counter += id;
    pthread_mutex_unlock(&lock);
    ++tls_steps;
    if (i % 500 == 0) sched_yield();
  }
  if (syscall(SYS_gettid) != getpid()) {
    pthread_mutex_lock(&lock);
    ++tids_distinct;
    pthread_mutex_unlock(&lock);
  }
  return (void*)tls_steps;
}

static void* consumer(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  for (;;) {
    while (!slot_full && !done) pthread_cond_wait(&changed, &lock);
    if (slot_full) {
      consumed_sum += slot;
      slot_full = 0;
      pthread_cond_broadcast(&changed);
    } else if (done) {
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void* lock_forever(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock); /* held by main, which joins us: nobody can run */
  return NULL;
}

static void* last_one(void* arg) {
  (void)arg;
  long sum = 0;
  for (int i = 0; i < 1000; ++i) sum += i;
  printf("worker finished after main: %ld\n", sum);
  fflush(stdout);
  return NULL;
}

static int other_mode(const char* mode, char** argv) {
  pthread_t t;
  if (!strcmp(mode, "deadlock")) {
    pthread_mutex_lock(&lock);
    pthread_create(&t, NULL, lock_forever, NULL);
    pthread_join(t, NULL);
    return 0;
  }
  if (!strcmp(mode, "main-exits")) {
    pthread_create(&t, NULL, last_one, NULL);
    pthread_exit(NULL);
  }
  if (!strcmp(mode, "fork")) {
    pid_t p = fork();
    if (p == 0) _exit(0);
    if (p < 0) perror("fork");
    else waitpid(p, NULL, 0);
    return p < 0 ? 2 : 0;
  }
  if (!strcmp(mode, "exec")) {
    char* again[] = {argv[0], NULL};
    execv(argv[0], again); /* would run ourselves again, in the default mode */
    perror("execv");
    return 2;
  }
  return 1;
}

int main(int argc, char** argv) {
  if (argc > 1) return other_mode(argv[1], argv);
  pthread_t w[3], c;
  pthread_create(&c, NULL, consumer, NULL);
  for (long i = 0; i < 3; ++i) pthread_create(&w[i], NULL, worker, (void*)(i + 1));
  for (int item = 1; item <= 200; ++item) {
    pthread_mutex_lock(&lock);
    while (slot_full) pthread_cond_wait(&changed, &lock);
    slot = item;
    slot_full = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
  }
  pthread_mutex_lock(&lock);
  while (slot_full) pthread_cond_wait(&changed, &lock);
  done = 1;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  long steps = 0;
  for (int i = 0; i < 3; ++i) {
    void* r;
    pthread_join(w[i], &r);
    steps += (long)r;
  }
  pthread_join(c, NULL);
  printf("counter %ld (expected %d)\n", counter, 3000 * 6);
  printf("consumed %ld (expected %d)\n", consumed_sum, 200 * 201 / 2);
  printf("per-thread tls steps %ld, workers with their own tid %ld\n", steps, tids_distinct);
  return 0;
}
