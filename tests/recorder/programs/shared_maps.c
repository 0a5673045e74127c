/* Shared mappings of files and MADV_DONTNEED under the recorder
 * (docs/recording.md, "Memory"). argv[1] is a scratch directory. Prints
 * what every native run prints (1 = as expected):
 * - a file mapped MAP_SHARED and PROT_WRITE: stores reach the file after
 *   msync (pread sees them) and after munmap (a new open sees them), also
 *   past a partial munmap; no byte past the file's end is written;
 * - pages the program did not store to are not written back: a pwrite
 *   beside a mapping (SQLite's mmap_size reads the file through a
 *   read-only shared mapping and writes it with pwrite) stays;
 * - a read-only descriptor cannot be mapped shared and writable (EACCES);
 * - MADV_DONTNEED zeroes private anonymous pages (glibc's arenas count on
 *   it) and leaves a shared file mapping's bytes, which are the file's.
 * With argv[2] "fork": a forked child stores into the shared mapping and
 * the parent prints whether it sees the store (natively 1; under the
 * recorder 0, and the fork is listed as unsupported); "fork-anon": the
 * same with a MAP_SHARED|MAP_ANONYMOUS mapping. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const long pg = sysconf(_SC_PAGESIZE);
  char path[4096];
  snprintf(path, sizeof path, "%s/shared.bin", argv[1]);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ftruncate(fd, 3 * pg - 100) != 0) return 3;
  if (argc > 2 && (!strcmp(argv[2], "fork") || !strcmp(argv[2], "fork-anon"))) {
    char* s = strcmp(argv[2], "fork") ? mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)
                                      : mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (s == MAP_FAILED) return 4;
    pid_t c = fork();
    if (c == 0) {
      s[0] = 'C';
      _exit(0);
    }
    int st = 0;
    waitpid(c, &st, 0);
    printf("child's store seen: %d\n", s[0] == 'C');
    return 0;
  }
  char* m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) return 4;
  memcpy(m, "hello", 5);
  memcpy(m + pg + 7, "middle", 6);
  memcpy(m + 3 * pg - 105, "tail", 4);
  m[3 * pg - 50] = 'x'; /* past the file's end: never written */
  char buf[16] = {0};
  printf("msync: %d\n", msync(m, 3 * pg, MS_SYNC));
  printf("pread after msync: %d\n", pread(fd, buf, 5, 0) == 5 && !memcmp(buf, "hello", 5));
  memcpy(m + 2 * pg, "last page", 9);
  printf("partial munmap: %d\n", munmap(m, pg));
  memcpy(m + pg + 7, "MIDDLE", 6);
  printf("munmap the rest: %d\n", munmap(m + pg, 2 * pg));
  close(fd);
  fd = open(path, O_RDONLY);
  char whole[3 * 4096 + 64];
  const ssize_t n = read(fd, whole, sizeof whole);
  printf("file size unchanged: %d\n", n == 3 * pg - 100);
  printf("stores in the file: %d %d %d %d\n", !memcmp(whole, "hello", 5), !memcmp(whole + pg + 7, "MIDDLE", 6),
         !memcmp(whole + 2 * pg, "last page", 9), !memcmp(whole + 3 * pg - 105, "tail", 4));
  close(fd);
  fd = open(path, O_RDWR);
  char* r = mmap(NULL, 3 * pg, PROT_READ, MAP_SHARED, fd, 0);
  char* w = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  w[0] = 'H';
  const int wrote = pwrite(fd, "PWRITE", 6, pg + 7) == 6 && pwrite(fd, "pw", 2, 2 * pg) == 2;
  munmap(r, 3 * pg);
  munmap(w, 2 * pg);
  char seen[16] = {0};
  pread(fd, seen, 6, pg + 7);
  pread(fd, seen + 6, 2, 2 * pg);
  pread(fd, seen + 8, 5, 0);
  printf("pwrite beside mappings kept: %d, the store kept %d\n", wrote && !memcmp(seen, "PWRITEpw", 8),
         !memcmp(seen + 8, "Hello", 5));
  close(fd);
  fd = open(path, O_RDONLY);
  errno = 0;
  void* ro = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  printf("shared writable of a read-only fd: EACCES %d\n", ro == MAP_FAILED && errno == EACCES);
  close(fd);
  unsigned char* anon = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  memset(anon, 0xab, 2 * pg);
  printf("MADV_DONTNEED: %d\n", madvise(anon, pg, MADV_DONTNEED));
  printf("zeroed %d, the next page kept %d\n", anon[0] == 0 && anon[pg - 1] == 0, anon[pg] == 0xab);
  fd = open(path, O_RDWR);
  char* again = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  again[1] = 'E';
  printf("MADV_DONTNEED on a shared file mapping: %d, bytes kept %d\n", madvise(again, pg, MADV_DONTNEED),
         !memcmp(again, "HEllo", 5));
  close(fd);
  /* Not unmapped: the process's end writes it back. */
  return 0;
}
