// Memory shared between a process and its fork's child (the recorder's
// host_shared_memory.h): each mode prints what it saw, which must be what
// the native run prints.
//   anon     MAP_SHARED|MAP_ANONYMOUS: process-shared semaphores ping-pong
//            a counter the child increments; then the parent spins, with
//            no syscall, on a flag the child sets
//   atomic   both processes add to one word with atomic instructions and
//            take a process-shared mutex around a plain counter
//   shm      shm_open + mmap: the child writes a message, posts a semaphore
//   semopen  a named semaphore (sem_open), as Python's multiprocessing
//   child-threads  a fork's child runs threads of its own: one waits on a
//            condition variable another signals, a third reads a pipe the
//            signaller writes to later; the child joins them and reports
//            through a pipe (Python's multiprocessing.Queue in a child
//            Process: its feeder thread; a Manager's server threads)
//   child-spin  a fork's child spins, with no syscall, until a thread of
//            its own sets a flag after a 20 ms sleep (a spin lock's shape)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct Area {
  sem_t ping, pong;
  pthread_mutex_t mutex;
  long counter, locked_total;
  long atomic_total;
  int flag;
  char message[64];
};

static struct Area* anon_area(void) {
  struct Area* a = mmap(NULL, sizeof *a, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (a == MAP_FAILED) perror("mmap"), exit(2);
  return a;
}

static int wait_child(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) perror("waitpid"), exit(2);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void pause_ms(int ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static int anon(void) {
  enum { kRounds = 500 };
  struct Area* a = anon_area();
  sem_init(&a->ping, 1, 0);
  sem_init(&a->pong, 1, 0);
  pid_t pid = fork();
  if (pid == 0) {
    for (int i = 0; i < kRounds; ++i) {
      sem_wait(&a->ping);
      a->counter++;
      sem_post(&a->pong);
    }
    pause_ms(50);
    __atomic_store_n(&a->flag, 7, __ATOMIC_RELEASE);
    _exit(0);
  }
  int wrong = 0;
  for (int i = 0; i < kRounds; ++i) {
    sem_post(&a->ping);
    sem_wait(&a->pong);
    if (a->counter != i + 1) ++wrong;
  }
  long spins = 0;
  while (__atomic_load_n(&a->flag, __ATOMIC_ACQUIRE) == 0) ++spins;
  printf("anon: counter %ld, wrong %d, flag %d, spun %s\n", a->counter, wrong, a->flag, spins > 0 ? "yes" : "no");
  return wait_child(pid);
}

static void add_many(struct Area* a, int n) {
  for (int i = 0; i < n; ++i) {
    __atomic_fetch_add(&a->atomic_total, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&a->mutex);
    a->locked_total++;
    pthread_mutex_unlock(&a->mutex);
  }
}

static int atomic(void) {
  enum { kAdds = 50000 };
  struct Area* a = anon_area();
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_mutex_init(&a->mutex, &attr);
  pid_t pid = fork();
  if (pid == 0) {
    // Both start together, so that their adds overlap.
    while (!__atomic_load_n(&a->flag, __ATOMIC_ACQUIRE)) {
    }
    add_many(a, kAdds);
    _exit(0);
  }
  __atomic_store_n(&a->flag, 1, __ATOMIC_RELEASE);
  add_many(a, kAdds);
  int status = wait_child(pid);
  printf("atomic: %ld of %d, locked: %ld of %d\n", a->atomic_total, 2 * kAdds, a->locked_total, 2 * kAdds);
  return status;
}

static int shm(void) {
  char name[64];
  snprintf(name, sizeof name, "/ttd-test-shm-%d", (int)getpid());
  int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0 || ftruncate(fd, sizeof(struct Area)) != 0) perror("shm_open"), exit(2);
  struct Area* a = mmap(NULL, sizeof *a, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (a == MAP_FAILED) perror("mmap"), exit(2);
  close(fd);
  sem_init(&a->ping, 1, 0);
  pid_t pid = fork();
  if (pid == 0) {
    pause_ms(30);
    strcpy(a->message, "written by the child");
    sem_post(&a->ping);
    _exit(0);
  }
  sem_wait(&a->ping);
  printf("shm: %s\n", a->message);
  shm_unlink(name);
  return wait_child(pid);
}

static int semopen(void) {
  char name[64];
  snprintf(name, sizeof name, "/ttd-test-sem-%d", (int)getpid());
  sem_t* s = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
  if (s == SEM_FAILED) perror("sem_open"), exit(2);
  pid_t pid = fork();
  if (pid == 0) {
    // A timed wait nobody posts: ETIMEDOUT after its 200 ms, on the
    // child's clock too (it waits on the host's futex).
    struct timespec until, t0, t1;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 200000000;
    if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const int r = sem_timedwait(s, &until);
    const int err = errno;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    for (int i = 0; i < 3; ++i) pause_ms(10), sem_post(s);
    _exit(r == 0 || err != ETIMEDOUT ? 5 : ms < 200 ? 6 : 0);
  }
  for (int i = 0; i < 3; ++i) sem_wait(s);
  int value = -1;
  sem_getvalue(s, &value);
  printf("semopen: three posts taken, value %d\n", value);
  sem_unlink(name);
  const int status = wait_child(pid);
  printf("semopen: the child's timed wait %s\n", status == 0 ? "took its 200 ms" : status == 5 ? "did not time out" : "ended early");
  return status;
}

static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static int g_ready, g_sum;
static int g_pipe[2];

static void* waiter(void* arg) {
  (void)arg;
  pthread_mutex_lock(&g_mutex);
  while (!g_ready) pthread_cond_wait(&g_cond, &g_mutex);
  g_sum += 10;
  pthread_mutex_unlock(&g_mutex);
  return NULL;
}

static void* signaller(void* arg) {
  (void)arg;
  pthread_mutex_lock(&g_mutex);
  g_ready = 1;
  g_sum += 1;
  pthread_cond_signal(&g_cond);
  pthread_mutex_unlock(&g_mutex);
  if (write(g_pipe[1], "x", 1) != 1) _exit(4);
  return NULL;
}

static void* reader(void* arg) {
  (void)arg;
  char c = 0;
  if (read(g_pipe[0], &c, 1) == 1 && c == 'x') {
    pthread_mutex_lock(&g_mutex);
    g_sum += 100;
    pthread_mutex_unlock(&g_mutex);
  }
  return NULL;
}

// Runs `body` in a fork's child, which reports one line through a pipe;
// the parent prints it and returns how the child ended.
static int in_child(int (*body)(char* line, size_t size)) {
  int p[2];
  if (pipe(p) != 0) perror("pipe"), exit(2);
  pid_t pid = fork();
  if (pid == 0) {
    char line[64];
    int n = body(line, sizeof line);
    if (write(p[1], line, (size_t)n) != n) _exit(3);
    _exit(0);
  }
  close(p[1]);
  char buf[64] = {0};
  ssize_t n = read(p[0], buf, sizeof buf - 1);
  printf("%s", n > 0 ? buf : "nothing from the child\n");
  return wait_child(pid);
}

static int child_threads(char* line, size_t size) {
  pthread_t a, b, r;
  if (pipe(g_pipe) != 0) _exit(5);
  pthread_create(&r, NULL, reader, NULL);
  pthread_create(&a, NULL, waiter, NULL);
  pthread_create(&b, NULL, signaller, NULL);
  pthread_join(r, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return snprintf(line, size, "child's threads: sum %d\n", g_sum);
}

static volatile int g_flag;
static int g_go[2];

static void* flag_setter(void* arg) {
  (void)arg;
  char c;
  if (read(g_go[0], &c, 1) != 1) _exit(6);  // parks until main writes, then is runnable while main spins
  struct timespec t = {0, 20000000};
  nanosleep(&t, NULL);  // a sleep's end comes while main spins
  __atomic_store_n(&g_flag, 7, __ATOMIC_SEQ_CST);
  return NULL;
}

static int child_spin(char* line, size_t size) {
  pthread_t t;
  if (pipe(g_go) != 0) _exit(5);
  pthread_create(&t, NULL, flag_setter, NULL);
  if (write(g_go[1], "g", 1) != 1) _exit(4);
  while (__atomic_load_n(&g_flag, __ATOMIC_SEQ_CST) == 0) {
  }
  pthread_join(t, NULL);
  return snprintf(line, size, "child's spin ended: flag %d\n", g_flag);
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char* mode = argc > 1 ? argv[1] : "anon";
  if (!strcmp(mode, "anon")) return anon();
  if (!strcmp(mode, "atomic")) return atomic();
  if (!strcmp(mode, "shm")) return shm();
  if (!strcmp(mode, "semopen")) return semopen();
  if (!strcmp(mode, "child-threads")) return in_child(child_threads);
  if (!strcmp(mode, "child-spin")) return in_child(child_spin);
  fprintf(stderr, "unknown mode %s\n", mode);
  return 2;
}
