/* files.c - exercises the recorder's host file system calls (test_recorder).
 * `files DIR` works inside DIR (made by the test, holding data.txt with
 * "0123456789abcdef\n" and an empty subdirectory sub/) and prints one line
 * per check; the test compares them with a native run's. Exit 0. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  if (chdir(argv[1]) != 0) return 3;
  char cwd[4096];
  printf("getcwd %d\n", getcwd(cwd, sizeof cwd) != NULL && strcmp(cwd, argv[1]) == 0);

  int fd = open("data.txt", O_RDONLY);
  printf("open %d\n", fd >= 3);
  char buf[32] = {0};
  printf("read %ld %s", (long)read(fd, buf, 5), buf);
  printf("\n");
  printf("lseek %ld\n", (long)lseek(fd, 10, SEEK_SET));
  memset(buf, 0, sizeof buf);
  printf("read %ld %s", (long)read(fd, buf, sizeof buf - 1), buf);
  memset(buf, 0, sizeof buf);
  printf("pread %ld %s\n", (long)pread(fd, buf, 4, 2), buf);
  struct stat st;
  int r = fstat(fd, &st);
  printf("fstat %d size %ld reg %d\n", r, (long)st.st_size, S_ISREG(st.st_mode));
  r = stat("data.txt", &st);
  printf("stat %d size %ld\n", r, (long)st.st_size);
  printf("stat missing %d\n", stat("missing", &st) == -1);
  printf("access %d %d\n", access("data.txt", R_OK), access("missing", F_OK) == -1);

  char *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
  printf("mmap %d %.4s\n", m != MAP_FAILED, m == MAP_FAILED ? "" : m + 12);
  munmap(m, 4096);

  int d = dup(fd);
  printf("dup %d\n", d > fd);
  printf("lseek %ld\n", (long)lseek(d, 0, SEEK_CUR));
  printf("dup2 %d\n", dup2(fd, 20));
  r = fcntl(fd, F_SETFD, FD_CLOEXEC);
  printf("fcntl %d %d\n", r, fcntl(fd, F_GETFD));
  close(d);
  close(20);
  r = close(fd);
  printf("close %d badf %d\n", r, close(fd) == -1);

  int p[2];
  printf("pipe %d\n", pipe(p));
  printf("pipe write %ld\n", (long)write(p[1], "through", 7));
  memset(buf, 0, sizeof buf);
  printf("pipe read %ld %s\n", (long)read(p[0], buf, sizeof buf), buf);
  close(p[0]);
  close(p[1]);

  int out = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  struct iovec iov[2] = {{"wri", 3}, {"tten\n", 5}};
  printf("writev %ld\n", (long)writev(out, iov, 2));
  close(out);
  FILE *f = fopen("out.txt", "r");
  printf("fopen %d %s", f != NULL, f && fgets(buf, sizeof buf, f) ? buf : "-\n");
  if (f) fclose(f);
  printf("unlink %d\n", unlink("out.txt"));

  DIR *dir = opendir(".");
  int entries = 0, saw_sub = 0;
  struct dirent *e;
  while (dir && (e = readdir(dir)) != NULL) {
    ++entries;
    if (strcmp(e->d_name, "sub") == 0) saw_sub = 1;
  }
  if (dir) closedir(dir);
  printf("readdir %d sub %d\n", entries, saw_sub);
  printf("chdir %d\n", chdir("sub"));
  printf("open relative %d\n", open("../data.txt", O_RDONLY) >= 0);

  /* close_range (436 on x86-64 and AArch64): marks a range close-on-exec
     (CLOSE_RANGE_CLOEXEC, 4), closes one, refuses first > last. */
  int r0 = open("../data.txt", O_RDONLY), r1 = dup(r0), r2 = dup(r0);
  long cr = syscall(436, r1, r2, 4);
  printf("close_range cloexec %ld: %d %d %d\n", cr, fcntl(r0, F_GETFD), fcntl(r1, F_GETFD), fcntl(r2, F_GETFD));
  cr = syscall(436, r1, ~0U, 0);
  printf("close_range %ld: %d %d %d\n", cr, fcntl(r0, F_GETFD) >= 0, fcntl(r1, F_GETFD) >= 0, fcntl(r2, F_GETFD) >= 0);
  cr = syscall(436, 5, 3, 0);
  printf("close_range 5..3 %ld %d\n", cr, cr == -1 ? errno : 0);
  return 0;
}
