/* fixture.c - a small -g -O0 program whose DWARF the debuginfo tests read.
 * Markers in comments name the lines the tests look for. */
struct point {
  int x;
  long y;
  char tag[6];
};

static struct point origin = {1, 2, "orig"};
long counter;

static int square(int v) {
  int r = v * v; /* @square_body */
  return r;      /* @square_return */
}

static int sum_to(int n) {
  if (n == 0)
    return 0;
  return n + sum_to(n - 1);
}

int main(void) {
  struct point p = {3, 4, "pt"};
  counter = square(p.x);
  counter += sum_to(3);

  /* no code on this line or the blank one above; @blank */
  return (int)counter - 15 + origin.x - 1; /* @main_return */
}
