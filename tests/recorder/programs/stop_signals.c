// Stopped from outside (tests/recorder/cli_stop_signals.py): each mode
// prints "start" once it is where the signal should find it.
//   spin          a busy loop
//   handler       a SIGINT handler that prints and exits 0, then a busy loop
//   restart       a SA_RESTART SIGINT handler, then read() of stdin: the
//                 read goes on after the handler and returns what comes next
//   read-stdin    blocked in read() of stdin (a pipe that gets no data)
//   thread-read   a thread blocked in read() of a pipe of its own that never
//                 gets data, the main thread in a busy loop
//   kill-child    fork; the child says it runs and spins; the parent kills
//                 it with SIGTERM and prints what waitpid says
//   suspend       a SIGTERM handler, then sigsuspend() (SIGTERM blocked
//                 until then, so it cannot come before the wait)
//   pause         pause() with SIGTERM's default action: it ends the process
//   sigwait       main blocks SIGUSR1 and joins a thread that waits for it
//                 in sigwait(); every thread is then blocked, natively until
//                 the signal comes
//   semaphore     a worker waits in sem_wait and main joins it (both futex
//                 waits); a SIGTERM handler posts the semaphore, so the
//                 signal from outside is what ends the wait
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(const char* s) { (void)!write(1, s, strlen(s)); }

static void spin(void) {
  volatile unsigned long i = 0;
  for (;;) i++;
}

static void on_int_exit(int sig) {
  (void)sig;
  say("handler: SIGINT\n");
  _exit(0);
}

static void on_int_note(int sig) {
  (void)sig;
  say("handler: SIGINT\n");
}

static void on_term_note(int sig) {
  (void)sig;
  say("handler: SIGTERM\n");
}

static void* waiter(void* arg) {
  sigset_t* set = arg;
  int sig = 0;
  say("start\n");
  int r = sigwait(set, &sig);
  printf("sigwait: %d, signal %d\n", r, sig);
  return NULL;
}

static sem_t shutdown_sem;

static void on_term_post(int sig) {
  (void)sig;
  say("handler: SIGTERM\n");
  sem_post(&shutdown_sem);  // async-signal-safe
}

static void* sem_waiter(void* arg) {
  (void)arg;
  while (sem_wait(&shutdown_sem) != 0 && errno == EINTR) {
  }
  say("worker: woken\n");
  return NULL;
}

static void* reader(void* arg) {
  int* fds = arg;
  char c;
  say("start\n");
  ssize_t n = read(fds[0], &c, 1);
  printf("thread read: %zd\n", n);
  return NULL;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "spin";
  if (!strcmp(mode, "spin")) {
    say("start\n");
    spin();
  }
  if (!strcmp(mode, "handler")) {
    signal(SIGINT, on_int_exit);
    say("start\n");
    spin();
  }
  if (!strcmp(mode, "restart")) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_int_note;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    say("start\n");
    char buf[16];
    ssize_t n = read(0, buf, sizeof buf);
    printf("read: %zd\n", n);
    return 0;
  }
  if (!strcmp(mode, "read-stdin")) {
    char c;
    say("start\n");
    ssize_t n = read(0, &c, 1);
    printf("read: %zd\n", n);
    return 0;
  }
  if (!strcmp(mode, "thread-read")) {
    static int fds[2];
    if (pipe(fds) != 0) return 2;
    pthread_t t;
    pthread_create(&t, NULL, reader, fds);
    spin();
  }
  if (!strcmp(mode, "suspend")) {
    sigset_t term, none;
    sigemptyset(&term);
    sigemptyset(&none);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, NULL);
    signal(SIGTERM, on_term_note);
    say("start\n");
    int r = sigsuspend(&none);
    printf("sigsuspend: %d\n", r);
    return 0;
  }
  if (!strcmp(mode, "pause")) {
    say("start\n");
    for (;;) pause();
  }
  if (!strcmp(mode, "sigwait")) {
    static sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, NULL);
    pthread_t t;
    pthread_create(&t, NULL, waiter, &usr1);
    pthread_join(t, NULL);
    say("joined\n");
    return 0;
  }
  if (!strcmp(mode, "semaphore")) {
    sem_init(&shutdown_sem, 0, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term_post;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    pthread_t t;
    pthread_create(&t, NULL, sem_waiter, NULL);
    say("start\n");
    pthread_join(t, NULL);
    say("joined\n");
    return 0;
  }
  if (!strcmp(mode, "kill-child")) {
    int ready[2];
    if (pipe(ready) != 0) return 2;
    pid_t pid = fork();
    if (pid == 0) {
      say("child: running\n");
      (void)!write(ready[1], "r", 1);
      spin();
    }
    char c;
    (void)!read(ready[0], &c, 1);
    kill(pid, SIGTERM);
    int st = 0;
    waitpid(pid, &st, 0);
    printf("parent: child killed by %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return 0;
  }
  return 2;
}
