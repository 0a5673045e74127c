/* threshold.c - the diff tests' program: `threshold N` checks one digit
 * against a limit and prints the result. Inputs of the same length take
 * the same path through atoi, so two runs part ways at check()'s branch:
 * `threshold 3` returns 6, `threshold 7` returns -1. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int check(int v) {
  if (v > 5) return -1;
  return v * 2;
}

int main(int argc, char **argv) {
  int x = argc > 1 ? atoi(argv[1]) : 0;
  int r = check(x);
  printf("check(%d) = %d\n", x, r);
  return 0;
}
