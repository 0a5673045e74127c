/* The program's own /proc entries, as the recorder must show them: its
   memory map (not the recorder's), command line, environment, auxiliary
   vector, descriptors and executable. Prints only facts that hold
   natively, whatever the paths. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

static long worker_tid[2];
static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  *(long *)arg = syscall(SYS_gettid);
  pthread_mutex_lock(&hold);  /* until main has looked at task/ */
  pthread_mutex_unlock(&hold);
  return NULL;
}

/* Entries of /proc/self/task other than . and ..; *ours counts those that
   are this process's threads (main, and the workers while they run). */
static int task_entries(int *ours, int workers) {
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  int n = 0;
  *ours = 0;
  if (!d) return -1;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    long tid = atol(e->d_name);
    ++n;
    *ours += tid == getpid() || (workers && (tid == worker_tid[0] || tid == worker_tid[1]));
  }
  closedir(d);
  return n;
}

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
  /* procps (ps, top) looks itself up as /proc/<getpid()>: the directory,
     and entries the recorder does not make itself, are the process's. */
  struct stat pst;
  snprintf(name, sizeof name, "/proc/%d", getpid());
  printf("/proc/<pid> is a directory %d\n", stat(name, &pst) == 0 && S_ISDIR(pst.st_mode));
  n = readlink("/proc/self", link, sizeof link - 1);
  printf("/proc/self links to the pid %d\n", n > 0 && (link[n] = 0, atol(link) == getpid()));
  n = readlink("/proc/thread-self", link, sizeof link - 1);
  snprintf(buf, 64, "%d/task/%ld", getpid(), (long)syscall(SYS_gettid));
  printf("/proc/thread-self links to the thread %d\n", n > 0 && (link[n] = 0, strcmp(link, buf) == 0));
  snprintf(name, sizeof name, "/proc/%d/limits", getpid());
  printf("/proc/<pid>/limits reads %d\n", read_all(name, buf, sizeof buf - 1) > 0 && strncmp(buf, "Limit", 5) == 0);
  snprintf(name, sizeof name, "/proc/%d/", getpid());
  printf("/proc/<pid>/ opens as a directory %d\n", (again = open(name, O_RDONLY | O_DIRECTORY)) >= 0 && close(again) == 0);

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

  /* task/: the threads, each a directory with its own stat and status. */
  int ours = 0;
  pthread_t t[2];
  pthread_mutex_lock(&hold);
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, &worker_tid[i]);
  while (!__atomic_load_n(&worker_tid[0], __ATOMIC_SEQ_CST) || !__atomic_load_n(&worker_tid[1], __ATOMIC_SEQ_CST))
    sched_yield();
  n = task_entries(&ours, 1);
  printf("task/ with two workers: %d entries, %d of them ours\n", n, ours);
  snprintf(name, sizeof name, "/proc/self/task/%ld/stat", worker_tid[1]);
  n = read_all(name, buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = 0;
  printf("task/TID/stat is the worker's %d\n", n > 0 && atol(buf) == worker_tid[1]);
  snprintf(name, sizeof name, "/proc/self/task/%ld/status", worker_tid[0]);
  n = read_all(name, buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = 0;
  char line[64];
  snprintf(line, sizeof line, "\nPid:\t%ld\n", worker_tid[0]);
  int pid_ok = strstr(buf, line) != NULL;
  snprintf(line, sizeof line, "\nTgid:\t%d\n", getpid());
  printf("task/TID/status: Pid the worker's %d, Tgid the process's %d\n", pid_ok, strstr(buf, line) != NULL);
  snprintf(name, sizeof name, "/proc/self/task/%d/stat", getpid());
  n = read_all(name, buf, sizeof buf - 1);
  printf("task/PID/stat of the main thread %d\n", n > 0);
  errno = 0;
  int none = open("/proc/self/task/999999999/stat", O_RDONLY);
  printf("task/ of a thread not there: %d %s\n", none, errno == ENOENT ? "ENOENT" : "other");
  pthread_mutex_unlock(&hold);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  /* pthread_join returns when the kernel clears the thread's tid, which is
     before the exited thread leaves task/: natively a listing right after
     the joins can still show it (seen on CI), so wait up to a second. */
  for (int tries = 0; (n = task_entries(&ours, 0)) != 1 && tries < 1000; ++tries) usleep(1000);
  printf("task/ after the joins: %d entries, %d of them ours\n", n, ours);
  return 0;
}
