/* loop.c - a tight loop for benchmarks: `loop N` runs N iterations, each
 * incrementing a counter and storing it into an array, then prints the
 * counter and a checksum. About 10 instructions per iteration at -O0, so
 * `loop 10000000` makes a trace of roughly 100 M steps.
 *
 * What to look for: a watchpoint on values[0] triggers every 256
 * iterations; reverse-continue from the end lands on the last store.
 */
#include <stdio.h>
#include <stdlib.h>

static long values[256];

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  long counter = 0;
  for (long i = 0; i < n; i++) {
    counter++;
    values[i & 255] = counter;
  }
  long sum = 0;
  for (int i = 0; i < 256; i++)
    sum += values[i];
  printf("counter %ld checksum %ld\n", counter, sum);
  return 0;
}
