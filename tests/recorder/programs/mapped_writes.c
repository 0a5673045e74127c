/* Writes to a file the program has mapped, as Linux's page cache shows
 * them (docs/recording.md, "Memory"): pwrite, write at the position, an
 * append through a write-only descriptor, copy_file_range into it and
 * ftruncate show at once in a shared read-only mapping, a shared writable
 * one and the private pages
 * the program did not store to; a private page it stored to keeps its
 * store; a store through a shared writable mapping is what pread reads.
 * argv[1] is a scratch directory. Every native run prints 1s. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const long pg = sysconf(_SC_PAGESIZE);
  char path[4096];
  snprintf(path, sizeof path, "%s/mapped.bin", argv[1]);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 3;
  char buf[2 * 65536];
  memset(buf, 'a', sizeof buf);
  if (write(fd, buf, 2 * pg) != 2 * pg) return 4;
  /* Three pages over a file of two: the third lies past the end until
     the file grows (touching it before would be SIGBUS). */
  char* s = mmap(0, 3 * pg, PROT_READ, MAP_SHARED, fd, 0);
  char* p = mmap(0, 3 * pg, PROT_READ, MAP_PRIVATE, fd, 0);
  char* q = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  char* w = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (s == MAP_FAILED || p == MAP_FAILED || q == MAP_FAILED || w == MAP_FAILED) return 5;
  q[0] = 'x'; /* this private page is the program's now */
  if (pwrite(fd, "b", 1, 0) != 1) return 6;
  printf("pwrite: shared %d private %d shared writable %d, a stored private page kept %d, next to it %d\n",
         s[0] == 'b', p[0] == 'b', w[0] == 'b', q[0] == 'x' && q[1] == 'a', q[pg] == 'a');
  if (pwrite(fd, "y", 1, pg) != 1) return 7;
  printf("pwrite to the private mapping's other page: %d\n", q[pg] == 'y' && p[pg] == 'y');
  w[pg + 8] = 'c';
  char r = 0;
  if (pread(fd, &r, 1, pg + 8) != 1) return 8;
  printf("a store through the shared mapping, then pread: %d\n", r == 'c');
  lseek(fd, pg + 9, SEEK_SET);
  if (write(fd, "dd", 2) != 2) return 9;
  printf("write at the position: %d %d, the store kept %d\n", s[pg + 9] == 'd', w[pg + 10] == 'd', s[pg + 8] == 'c');
  int ap = open(path, O_WRONLY | O_APPEND);
  if (ap < 0 || write(ap, "eeee", 4) != 4) return 10;
  close(ap);
  printf("append through a write-only descriptor: %d %d\n", s[2 * pg] == 'e' && s[2 * pg + 3] == 'e',
         p[2 * pg + 4] == 0);
  char src_path[4200];
  snprintf(src_path, sizeof src_path, "%s/source.bin", argv[1]);
  int src = open(src_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (src < 0 || write(src, "zz", 2) != 2) return 12;
  long long from = 0, to = 16; /* loff_t */
  long copied = syscall(SYS_copy_file_range, src, &from, fd, &to, 2, 0);
  printf("copy_file_range into it: %d\n", copied == 2 && s[16] == 'z' && s[17] == 'z' && p[17] == 'z');
  close(src);
  if (ftruncate(fd, 100) != 0) return 11;
  printf("ftruncate: %d %d %d\n", s[99] == 'b' || s[99] == 'a', s[100] == 0 && s[pg - 1] == 0, p[100] == 0);
  close(fd);
  return 0;
}
