/* fixture.c - a small -g -O0 program whose DWARF the debuginfo tests read.
 * Markers in comments name the lines the tests look for. */
struct point {
  int x;
  long y;
  char tag[6];
};

/* A type that refers to itself: its TypeDesc is freed with the DebugInfo. */
struct link {
  struct link* next;
  int value;
};

static struct point origin = {1, 2, "orig"};
static struct link chain = {&chain, 9};
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
  return (int)counter - 15 + origin.x - 1 + chain.next->value - 9; /* @main_return */
}
