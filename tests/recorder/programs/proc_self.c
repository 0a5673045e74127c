/* The program's own /proc entries, as the recorder must show them: its
   memory map (not the recorder's), command line, environment, auxiliary
   vector, descriptors and executable. Prints only facts that hold
   natively, whatever the paths. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int read_all(const char *path, char *buf, int size) {
  int fd = open(path, O_RDONLY), n = 0, got;
  if (fd < 0) return -1;
  while (n < size && (got = read(fd, buf + n, size - n)) > 0) n += got;
  close(fd);
  return n;
}

int main(int argc, char **argv) {
  static char buf[1 << 16];
  char real[4096], link[4096];
  if (!realpath(argv[0], real)) return 2;

  int n = read_all("/proc/self/maps", buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = 0;
  unsigned long lo, hi, off, inode, here = (unsigned long)&main, sp = (unsigned long)&n;
  unsigned dmaj, dmin;
  char perms[8];
  int lines = 0, parsed = 0, main_x = 0, stack_rw = 0;
  for (char *line = buf; *line; line = strchr(line, '\n') + 1) {
    ++lines;
    if (sscanf(line, "%lx-%lx %4s %lx %x:%x %lu", &lo, &hi, perms, &off, &dmaj, &dmin, &inode) == 7) ++parsed;
    if (lo <= here && here < hi && perms[2] == 'x') main_x = strstr(line, real) < strchr(line, '\n');
    if (lo <= sp && sp < hi && perms[0] == 'r' && perms[1] == 'w') stack_rw = 1;
    if (!strchr(line, '\n')) break;
  }
  printf("maps: every line parses %d, main's code in an x mapping of the program %d, sp in rw %d\n",
         lines > 3 && parsed == lines, main_x, stack_rw);
  printf("maps: free of the recorder %d\n", strstr(buf, "/ttd") == NULL && strstr(buf, "test_recorder") == NULL);

#ifdef __GLIBC__
  pthread_attr_t a;
  void *addr;
  size_t size;
  int r = pthread_getattr_np(pthread_self(), &a);
  pthread_attr_getstack(&a, &addr, &size);
  printf("pthread_getattr_np %d: stack holds sp %d\n", r,
         (unsigned long)addr <= sp && sp < (unsigned long)addr + size);
#else
  printf("pthread_getattr_np 0: stack holds sp 1\n");
#endif

  n = read_all("/proc/self/cmdline", buf, sizeof buf);
  int want = 0;
  for (int i = 0; i < argc; ++i) want += strlen(argv[i]) + 1;
  printf("cmdline is argv %d\n", n == want && memcmp(buf, argv[0], n) == 0);
  n = read_all("/proc/self/environ", buf, sizeof buf);
  printf("environ %d: %.*s\n", n, n > 0 ? n - 1 : 0, buf);

  unsigned long av[128];
  n = read_all("/proc/self/auxv", (char *)av, sizeof av);
  int pagesz = 0, entry = 0;
  for (int i = 0; i + 1 < n / 8; i += 2) {
    if (av[i] == 6) pagesz = av[i + 1] == (unsigned long)getpagesize();
    if (av[i] == 9) entry = av[i + 1] != 0;
  }
  printf("auxv: pairs ending in AT_NULL %d, AT_PAGESZ %d, AT_ENTRY %d\n", n >= 16 && n % 16 == 0 && av[n / 8 - 2] == 0,
         pagesz, entry);

  n = readlink("/proc/self/exe", link, sizeof link - 1);
  printf("exe is the program %d\n", n > 0 && (link[n] = 0, strcmp(link, real) == 0));
  int fd = open(argv[0], O_RDONLY);
  char name[64];
  snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
  n = readlink(name, link, sizeof link - 1);
  printf("fd link names the file %d\n", n > 0 && (link[n] = 0, strcmp(link, real) == 0));
  char magic[4] = {0};
  int again = open(name, O_RDONLY);
  printf("reopened fd reads the file %d\n", again >= 0 && read(again, magic, 4) == 4 && memcmp(magic, "\177ELF", 4) == 0);
  snprintf(name, sizeof name, "/proc/%d/maps", getpid());
  printf("/proc/<pid>/maps is ours %d\n", read_all(name, buf, sizeof buf) > 0 && strstr(buf, "test_recorder") == NULL && strstr(buf, "/ttd\n") == NULL);

  // The task's name and AT_EXECFN come from the path execve was given.
  printf("AT_EXECFN is the path run %d\n", strcmp((const char *)getauxval(AT_EXECFN), argv[0]) == 0);
  n = read_all("/proc/self/comm", buf, sizeof buf);
  printf("comm: %.*s", n > 0 ? n : 0, buf);
  char task[16] = {0};
  prctl(PR_GET_NAME, task);
  printf("PR_GET_NAME: %s\n", task);
  prctl(PR_SET_NAME, "a-name-longer-than-fifteen");
  n = read_all("/proc/self/comm", buf, sizeof buf);
  printf("comm after PR_SET_NAME: %.*s", n > 0 ? n : 0, buf);
  return 0;
}
