/* short.c N - the corpus's reference trace (scripts/bench-corpus.sh): a
 * loop of N iterations and nothing else (no stdio), so that with musl's
 * short start-up the trace is about 1,000 steps: issue 17 compares a query
 * on every corpus trace with the same query on a trace this short.
 */
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 60;
  volatile long sum = 0;
  for (long i = 0; i < n; i++)
    sum += i;
  return (int)(sum & 1);
}
