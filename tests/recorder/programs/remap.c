/* mremap as real programs use it (glibc's and musl's realloc of large
 * blocks, sqlite3), and directly: grow in place, grow that must move,
 * shrink, move to a fixed address, and the errors. Prints results that do
 * not depend on where mappings land, so the native run's output is the
 * expected one. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char report[4096];
static size_t used;

static void say(const char* fmt, long a, long b) {
  used += (size_t)snprintf(report + used, sizeof report - used, fmt, a, b);
}

static unsigned long sum(const unsigned char* p, size_t n) {
  unsigned long s = 0;
  for (size_t i = 0; i < n; ++i) s = s * 131 + p[i];
  return s;
}

int main(void) {
  const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
  /* A mapping with free pages after it: 3 pages of 8 reserved. */
  unsigned char* a = mmap(0, 8 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (a == MAP_FAILED) return 2;
  munmap(a + 3 * pg, 5 * pg);
  for (size_t i = 0; i < 3 * pg; ++i) a[i] = (unsigned char)(i * 13 + 1);
  unsigned long before = sum(a, 3 * pg);

  unsigned char* g = mremap(a, 3 * pg, 5 * pg, 0);
  say("grow in place: %ld, same sum %ld\n", g == a, sum(g, 3 * pg) == before);
  long zero = sum(g + 3 * pg, 2 * pg) == 0;
  g[5 * pg - 1] = 9;
  say("grown part zero: %ld, writable %ld\n", zero, g[5 * pg - 1] == 9);

  /* Something right after it: growing further must move. */
  void* block = mmap(a + 5 * pg, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  say("blocker placed: %ld%ld\n", block == (void*)(a + 5 * pg), 0);
  void* r = mremap(a, 5 * pg, 7 * pg, 0);
  say("grow without MAYMOVE: %ld errno ENOMEM %ld\n", r == MAP_FAILED, errno == ENOMEM);
  unsigned char* m = mremap(a, 5 * pg, 7 * pg, MREMAP_MAYMOVE);
  say("grow with MAYMOVE: moved %ld, same sum %ld\n", m != a && m != MAP_FAILED, sum(m, 3 * pg) == before);
  say("old range gone: %ld, moved byte %ld\n", mremap(a, pg, pg, 0) == MAP_FAILED && errno == EFAULT,
      m[5 * pg - 1]);

  unsigned long first_two = sum(m, 2 * pg);
  unsigned char* s = mremap(m, 7 * pg, 2 * pg, 0);
  say("shrink: same address %ld, same sum %ld\n", s == m, sum(s, 2 * pg) == first_two);
  say("shrunk part gone: %ld%ld\n", mremap(m + 2 * pg, pg, pg, 0) == MAP_FAILED && errno == EFAULT, 0);

  unsigned char* fixed = mmap(0, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  unsigned long two = sum(s, 2 * pg);
  unsigned char* f = mremap(s, 2 * pg, 3 * pg, MREMAP_MAYMOVE | MREMAP_FIXED, fixed);
  say("fixed: at the address %ld, same sum %ld\n", f == fixed, sum(f, 2 * pg) == two);

  say("unaligned: EINVAL %ld%ld\n", mremap(f + 1, pg, pg, 0) == MAP_FAILED && errno == EINVAL, 0);
  say("new size 0: EINVAL %ld%ld\n", mremap(f, pg, 0, 0) == MAP_FAILED && errno == EINVAL, 0);
  say("unknown flag: EINVAL %ld%ld\n", mremap(f, pg, pg, 64) == MAP_FAILED && errno == EINVAL, 0);

  /* realloc of a large block (an mmapped chunk in glibc and musl). */
  size_t n = 256 << 10;
  unsigned char* p = malloc(n);
  memset(p, 7, n);
  p[0] = 1;
  for (int k = 0; k < 3; ++k) {
    p = realloc(p, n * (size_t)(k + 2));
    if (!p) return 3;
    memset(p + n * (size_t)(k + 1), k + 8, n);
  }
  say("realloc 256 KiB -> 1 MiB: kept %ld, tail %ld\n", p[0] == 1 && p[n - 1] == 7 && p[2 * n - 1] == 8, p[4 * n - 1]);
  p = realloc(p, n / 2);
  say("realloc down: kept %ld%ld\n", p[0] == 1 && p[n / 2 - 1] == 7, 0);
  free(p);
  fputs(report, stdout);
  return 0;
}
