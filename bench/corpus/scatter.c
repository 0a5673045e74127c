/* scatter.c N - the corpus's scattered-write loop (scripts/bench-corpus.sh):
 * N one-byte writes at pseudo-random offsets of a 64 KiB buffer, so every
 * chunk of the index touches all 16 of its pages with a few bytes each
 * (the pattern of allocators, B-trees and hash tables). Built static with
 * musl at benchmark time, -O0 like the examples: about 12 steps a write.
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned char buf[65536];

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  unsigned x = 1;
  for (long i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    buf[(x >> 8) & 0xffff] = (unsigned char)i;
  }
  unsigned long sum = 0;
  for (int i = 0; i < 65536; i++)
    sum += buf[i];
  printf("writes %ld checksum %lu\n", n, sum);
  return 0;
}
