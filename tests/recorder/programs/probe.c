/* probe.c - exercises the recorder's syscall emulation (test_recorder).
 * `probe` runs the syscalls below and exits 42; `probe crash` dereferences
 * a bad pointer; `probe abort` calls abort(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "crash") == 0) {
    volatile int *bad = (int *)16;
    return *bad;
  }
  if (argc > 1 && strcmp(argv[1], "abort") == 0)
    abort();

  long r = syscall(999); /* not a Linux syscall: -1, errno ENOSYS */
  printf("syscall999 %ld\n", r);
  r = syscall(999);
  struct utsname u;
  uname(&u);
  printf("uname %s %s\n", u.sysname, u.machine);
  printf("node %s release %s\n", u.nodename, u.release);
  printf("pid %d\n", (int)getpid());
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  printf("clock %d\n", ts.tv_sec >= 0);
  unsigned char rnd[8];
  printf("getrandom %d\n", (int)getrandom(rnd, sizeof rnd, 0));
  char *m = mmap(0, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  m[12345] = 7;
  printf("mmap %d\n", m[12345]);
  munmap(m, 1 << 20);
  char *h = malloc(100000);
  strcpy(h, "heap");
  printf("%s\n", h);
  free(h);
  char line[64] = {0};
  long n = read(0, line, sizeof line - 1);
  printf("stdin %ld %s\n", n, line);
  fflush(stdout);
  fprintf(stderr, "to stderr\n");
  return 42;
}
