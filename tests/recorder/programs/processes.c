/* New processes under the recorder (docs/recording.md, "Processes"):
   argv[1] picks the case; each prints what it saw, so a recording's output
   can be compared with the native run's.
   fork:   fork, the child writes to a pipe, the parent reads it and waits
           (exit status 7).
   vfork:  vfork + execve of /bin/echo, then waitpid.
   spawn:  posix_spawn of /bin/echo, and of a missing path (glibc's
           child reports the failure through memory it shares with the
           parent, musl's through a pipe).
   vfork-writes: a vfork child writes a global, a heap word and its
           parent's stack, then _exits; the parent prints what it sees.
   system: system("echo hi | tr a-z A-Z").
   popen:  popen("printf 'x\ny\n' | sort -r", "r"), read, pclose.
   kill:   fork a child that waits on a pipe forever, kill it with SIGTERM, waitid.
   crash:  fork a child that dereferences NULL; the parent's wait says SIGSEGV.
   thread-wait: fork a child that waits (natively, with a 120 s timeout)
           for a line on a pipe, then waitpid for it while another thread
           writes that line: the waiting thread must let the other run.
   sigpipe: a child that exits holding a pipe's only read end; the
           parent's write then fails with EPIPE (SIGPIPE ignored), and
           kills it (SIGPIPE default).
   child-prints: a forked child prints (stdio) before it exits, then the
           parent prints.
   kill-4242: as kill, after asking Linux to give the next pid 4242 (the
           recorder's pid for the recorded process; needs a pid namespace
           where /proc/sys/kernel/ns_last_pid is writable).
   exec:   execve in the recorded process itself (recorded into a second trace).
   pidfd:  pidfd_open of itself (not ready while it runs; pidfd_send_signal
           runs its handler), sigqueue to itself, and pidfd_open of two children: poll and waitid(P_PIDFD)
           for one that exits 7, pidfd_send_signal SIGTERM to one that waits.
   child-waits: a child that sets a 0.2 s ITIMER_REAL and calls pause()
           dies of SIGALRM; of two children that sleep 0.3 s and 0.05 s
           before writing to a pipe, the shorter sleeper writes first.
   clone-vm: clone(CLONE_VM) without CLONE_VFORK, a child that would share
           the parent's memory while both run (refused: -ENOSYS). Not for
           running natively. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

extern char** environ;

static volatile sig_atomic_t got_usr1;
static void on_usr1(int sig) { got_usr1 = sig; }
static volatile int queued_code, queued_value;
static void on_queued(int sig, siginfo_t* si, void* ctx) {
  (void)sig, (void)ctx;
  queued_code = si->si_code;
  queued_value = si->si_value.sival_int;
}

static void pidfds(void) {
  int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
  struct pollfd pf = {self, POLLIN, 0};
  printf("pidfd of itself: %s, ready while it runs: %d\n", self >= 0 ? "yes" : strerror(errno), poll(&pf, 1, 0));
  signal(SIGUSR1, on_usr1);
  long r = syscall(SYS_pidfd_send_signal, self, SIGUSR1, NULL, 0);
  printf("pidfd_send_signal to itself: %ld, handler ran: %d\n", r, got_usr1 == SIGUSR1);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_queued;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR2, &sa, NULL);
  union sigval v;
  v.sival_int = 42;
  r = sigqueue(getpid(), SIGUSR2, v);
  printf("sigqueue to itself: %ld, code %d value %d\n", r, queued_code, queued_value);
  char link[64] = "";
  char path[32];
  snprintf(path, sizeof path, "/proc/self/fd/%d", self);
  ssize_t n = readlink(path, link, sizeof link - 1);
  printf("its link: %s\n", n > 0 ? link : strerror(errno));
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) _exit(7);
  int fd = (int)syscall(SYS_pidfd_open, c, 0);
  pf.fd = fd;
  int ready = poll(&pf, 1, 60000); /* (until 2026-11-29 the recorder timed it out at once) */
  siginfo_t si;
  memset(&si, 0, sizeof si);
  int w = waitid(P_PIDFD, fd, &si, WEXITED);
  printf("exiting child: ready %d (POLLIN %d), waitid %d, pid same %d, code %d status %d\n", ready,
         (pf.revents & POLLIN) != 0, w, si.si_pid == c, si.si_code, si.si_status);
  /* The child waits in a read of a pipe nobody writes (pause() is
     child-waits' case). */
  int never[2];
  if (pipe(never)) return;
  c = fork();
  if (c == 0) {
    char byte;
    close(never[1]);
    if (read(never[0], &byte, 1) < 0) _exit(8);
    _exit(0);
  }
  close(never[0]);
  int killed = (int)syscall(SYS_pidfd_open, c, 0);
  r = syscall(SYS_pidfd_send_signal, killed, SIGTERM, NULL, 0);
  memset(&si, 0, sizeof si);
  w = waitid(P_PIDFD, killed, &si, WEXITED);
  printf("waiting child: pidfd_send_signal %ld, waitid %d, pid same %d, code %d status %d\n", r, w, si.si_pid == c,
         si.si_code, si.si_status);
  close(never[1]);
  w = waitid(P_PIDFD, 999, &si, WEXITED);
  printf("waitid of a closed pidfd: %d %s\n", w, strerror(errno));
}

static void report(const char* what, pid_t pid, int st) {
  if (pid < 0) printf("%s: wait failed: %s\n", what, strerror(errno));
  else if (WIFEXITED(st)) printf("%s: exited %d\n", what, WEXITSTATUS(st));
  else if (WIFSIGNALED(st)) printf("%s: killed by signal %d\n", what, WTERMSIG(st));
  else printf("%s: status 0x%x\n", what, st);
  fflush(stdout);
}

static int gate[2];

static void* release_child(void* arg) {
  (void)arg;
  /* (Under the recorder the main thread keeps the CPU after
     pthread_create until it waits in waitpid.) */
  if (write(gate[1], "go\n", 3) != 3) return NULL;
  return NULL;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "fork";
  if (!strcmp(mode, "fork")) {
    int p[2];
    if (pipe(p)) return 1;
    pid_t c = fork();
    if (c == 0) {
      close(p[0]);
      char msg[64];
      int n = snprintf(msg, sizeof msg, "child says hello, ppid known %d\n", getppid() > 0);
      if (write(p[1], msg, n) != n) _exit(1);
      _exit(7);
    }
    close(p[1]);
    char buf[128];
    ssize_t n, total = 0;
    while ((n = read(p[0], buf + total, sizeof buf - 1 - total)) > 0) total += n;
    buf[total] = 0;
    printf("parent read %zd bytes: %s", total, buf);
    int st = 0;
    pid_t w = waitpid(c, &st, 0);
    printf("waited for the child: %d\n", w == c);
    report("fork child", w, st);
  } else if (!strcmp(mode, "vfork")) {
    fflush(stdout);
    pid_t c = vfork();
    if (c == 0) {
      char* args[] = {"/bin/echo", "echo", "from", "vfork", NULL};
      execve(args[0], args, environ);
      _exit(99);
    }
    int st = 0;
    { pid_t w_ = waitpid(c, &st, 0); report("vfork child", w_, st); }
  } else if (!strcmp(mode, "spawn")) {
    fflush(stdout);
    char* args[] = {"echo", "spawned", "echo", NULL};
    pid_t pid = -1;
    int r = posix_spawn(&pid, "/bin/echo", NULL, NULL, args, environ);
    int st = 0;
    /* Printed after waitpid: printed before it, this line raced the echo's
       natively too (musl's stdout writes its first line at once; 6 of 300
       native runs under load had the echo's first). */
    pid_t w_ = waitpid(pid, &st, 0);
    printf("posix_spawn /bin/echo: %d\n", r);
    report("spawned echo", w_, st);
    char* missing[] = {"nope", NULL};
    r = posix_spawn(&pid, "/nonexistent/program", NULL, NULL, missing, environ);
    /* ENOENT and no child (a child that exits 127 if the failure did
       not reach the parent). */
    printf("posix_spawn of a missing path: %s\n", r == 0 ? "0, child" : strerror(r));
    if (r == 0) { pid_t w_ = waitpid(pid, &st, 0); report("missing-path child", w_, st); }
  } else if (!strcmp(mode, "vfork-writes")) {
    static volatile int global = 1;
    volatile int* heap = malloc(sizeof *heap);
    volatile int local = 3;
    *heap = 2;
    pid_t c = vfork();
    if (c == 0) {
      global = 10;
      *heap = 20;
      local = 30;
      _exit(0);
    }
    int st = 0;
    pid_t w_ = waitpid(c, &st, 0);
    printf("after the vfork child: global %d, heap %d, stack %d\n", global, *heap, local);
    report("writing vfork child", w_, st);
  } else if (!strcmp(mode, "system")) {
    fflush(stdout);
    int st = system("echo hi | tr a-z A-Z");
    report("system", 0, st);
  } else if (!strcmp(mode, "popen")) {
    FILE* f = popen("printf 'x\\ny\\n' | sort -r", "r");
    if (!f) return 2;
    char line[64];
    while (fgets(line, sizeof line, f)) printf("popen line: %s", line);
    int st = pclose(f);
    report("pclose", 0, st);
  } else if (!strcmp(mode, "kill") || !strcmp(mode, "kill-4242")) {
    if (!strcmp(mode, "kill-4242")) {
      FILE* last = fopen("/proc/sys/kernel/ns_last_pid", "w");
      if (!last || fprintf(last, "4241") < 0 || fclose(last) != 0) {
        printf("cannot set ns_last_pid\n");
        return 77;
      }
    }
    int p[2];
    if (pipe(p)) return 1;
    pid_t c = fork();
    if (c == 0) {  /* waits for a byte nobody sends */
      char byte;
      close(p[1]);
      _exit(read(p[0], &byte, 1) == 1 ? 1 : 2);
    }
    close(p[0]);
    if (!strcmp(mode, "kill-4242")) printf("child pid 4242: %d\n", c == 4242);
    printf("kill: %d\n", kill(c, SIGTERM));
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int r = waitid(P_PID, c, &si, WEXITED);
    printf("waitid: %d pid same %d code %d (CLD_KILLED %d) status %d\n", r, si.si_pid == c, si.si_code,
           CLD_KILLED, si.si_status);
  } else if (!strcmp(mode, "crash")) {
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
      volatile int* p = NULL;
      *p = 1;
      _exit(0);
    }
    int st = 0;
    { pid_t w_ = waitpid(c, &st, 0); report("crashing child", w_, st); }
  } else if (!strcmp(mode, "clone-vm")) {
    static char stack[65536];
    long r = syscall(SYS_clone, CLONE_VM | SIGCHLD, stack + sizeof stack, 0, 0, 0);
    if (r == 0) _exit(0);
    printf("clone(CLONE_VM) without CLONE_VFORK: %s\n", r < 0 ? strerror(errno) : "a child");
  } else if (!strcmp(mode, "thread-wait")) {
    if (pipe(gate)) return 1;
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
      dup2(gate[0], 0);
      close(gate[0]);
      close(gate[1]);
      execl("/usr/bin/timeout", "timeout", "120", "/bin/sh", "-c", "read line; echo child got $line; exit 5", (char*)NULL);
      _exit(99);
    }
    close(gate[0]);
    pthread_t t;
    pthread_create(&t, NULL, release_child, NULL);
    int st = 0;
    pid_t w = waitpid(c, &st, 0);
    pthread_join(t, NULL);
    report("child released by a thread", w, st);
  } else if (!strcmp(mode, "sigpipe")) {
    int p[2];
    if (pipe(p)) return 1;
    pid_t c = fork();
    if (c == 0) _exit(0);
    close(p[0]);
    int st = 0;
    waitpid(c, &st, 0);
    signal(SIGPIPE, SIG_IGN);
    ssize_t n = write(p[1], "x", 1);
    printf("write with SIGPIPE ignored: %zd %s\n", n, n < 0 ? strerror(errno) : "");
    fflush(stdout);
    signal(SIGPIPE, SIG_DFL);
    n = write(p[1], "x", 1);
    printf("not reached: %zd\n", n);
  } else if (!strcmp(mode, "child-prints")) {
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
      printf("child prints\n");
      fflush(stdout);
      _exit(0);
    }
    int st = 0;
    waitpid(c, &st, 0);
    printf("parent prints\n");
  } else if (!strcmp(mode, "child-waits")) {
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
      struct itimerval it = {{0, 0}, {0, 200000}};
      setitimer(ITIMER_REAL, &it, NULL);
      pause();
      _exit(6);
    }
    int st = 0;
    pid_t w = waitpid(c, &st, 0);
    report("pausing child with a timer", w, st);
    int p[2];
    if (pipe(p)) return 1;
    pid_t slow = fork();
    if (slow == 0) {
      usleep(300000);
      if (write(p[1], "s", 1) != 1) _exit(1);
      _exit(0);
    }
    pid_t fast = fork();
    if (fast == 0) {
      usleep(50000);
      if (write(p[1], "f", 1) != 1) _exit(1);
      _exit(0);
    }
    char first = 0, second = 0;
    if (read(p[0], &first, 1) != 1 || read(p[0], &second, 1) != 1) return 1;
    waitpid(slow, &st, 0);
    waitpid(fast, &st, 0);
    printf("sleeping children wrote: %c%c\n", first, second);
  } else if (!strcmp(mode, "pidfd")) {
    pidfds();
  } else if (!strcmp(mode, "exec")) {
    char* args[] = {"/bin/true", NULL};
    execve(args[0], args, environ);
    printf("execve in the process itself: %s\n", strerror(errno));
  }
  return 0;
}
