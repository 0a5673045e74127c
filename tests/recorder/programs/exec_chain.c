/* execve of the recorded process (docs/recording.md, "execve and
 * --follow-fork"); what it prints is compared with the native run.
 *   hello ARGS...   prints its arguments, exits 5
 *   try PATH...     execv's each PATH (argv: PATH hello tried) in turn,
 *                   printing why each failed; "went on" and exit 3 if all did
 *   fds             opens /dev/null on fd 5 and, close-on-exec, on fd 6,
 *                   then execs itself: check-fds
 *   check-fds       which of fds 5 and 6 are open
 *   state           sets umask 027, cwd /tmp, SIGUSR1 ignored, a SIGUSR2
 *                   handler, SIGHUP blocked, PID_BEFORE; execs check-state
 *   check-state     prints what execve kept of that */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void on_usr2(int sig) { (void)sig; }

static int self_exec(const char* self, const char* mode) {
  char* args[] = {(char*)self, (char*)mode, NULL};
  fflush(stdout);
  execv("/proc/self/exe", args);
  printf("execv /proc/self/exe: %s\n", strerror(errno));
  return 2;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "hello";
  if (!strcmp(mode, "hello")) {
    printf("hello from exec_chain:");
    for (int i = 2; i < argc; ++i) printf(" %s", argv[i]);
    printf("\n");
    return 5;
  }
  if (!strcmp(mode, "try")) {
    for (int i = 2; i < argc; ++i) {
      char* args[] = {argv[i], "hello", "tried", NULL};
      fflush(stdout);
      execv(argv[i], args);
      printf("exec %s: %s\n", argv[i], strerror(errno));
    }
    printf("went on\n");
    return 3;
  }
  if (!strcmp(mode, "fds")) {
    int a = open("/dev/null", O_RDONLY);
    int b = open("/dev/null", O_RDONLY);
    dup2(a, 5);
    dup3(b, 6, O_CLOEXEC);
    return self_exec(argv[0], "check-fds");
  }
  if (!strcmp(mode, "check-fds")) {
    for (int fd = 5; fd <= 6; ++fd) printf("fd %d: %s\n", fd, fcntl(fd, F_GETFD) >= 0 ? "open" : "closed");
    return 0;
  }
  if (!strcmp(mode, "state")) {
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    setenv("PID_BEFORE", pid, 1);
    umask(027);
    if (chdir("/tmp") != 0) return 2; /* not "/": under a sysroot that is the sysroot */
    signal(SIGUSR1, SIG_IGN);
    signal(SIGUSR2, on_usr2);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGHUP);
    sigprocmask(SIG_BLOCK, &s, NULL);
    return self_exec(argv[0], "check-state");
  }
  if (!strcmp(mode, "check-state")) {
    char pid[32], cwd[256];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    const char* before = getenv("PID_BEFORE");
    printf("pid kept: %s\n", before && !strcmp(before, pid) ? "yes" : "no");
    mode_t m = umask(0);
    printf("umask: %03o\n", (unsigned)m);
    printf("cwd: %s\n", getcwd(cwd, sizeof cwd) ? cwd : "?");
    struct sigaction sa;
    sigaction(SIGUSR1, NULL, &sa);
    printf("SIGUSR1 ignored: %s\n", sa.sa_handler == SIG_IGN ? "yes" : "no");
    sigaction(SIGUSR2, NULL, &sa);
    printf("SIGUSR2 default: %s\n", sa.sa_handler == SIG_DFL ? "yes" : "no");
    sigset_t s;
    sigprocmask(SIG_BLOCK, NULL, &s);
    printf("SIGHUP blocked: %s\n", sigismember(&s, SIGHUP) ? "yes" : "no");
    return 0;
  }
  return 1;
}
