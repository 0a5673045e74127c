// The seed program of fuzz_elf: scripts/fuzz.sh builds it at fuzz time
// (static, no C library, with DWARF: a few KB) for x86-64 and aarch64.
// Types, locals, parameters and a global of several kinds, so the
// variable, type and location code has something to mutate.
struct node {
  int value;
  unsigned flags : 3;
  struct node* next;
  char name[8];
};
enum colour { RED, GREEN = 5, BLUE };

struct node nodes[3];
volatile enum colour favourite = GREEN;
double scale = 1.5;

static int sum(const struct node* n, int limit) {
  int total = 0;
  for (int i = 0; n && i < limit; n = n->next, ++i) total += n->value * (int)scale;
  return total;
}

int main(void) {
  for (int i = 0; i < 3; ++i) {
    nodes[i].value = i + (int)favourite;
    nodes[i].name[0] = (char)('a' + i);
    nodes[i].next = i < 2 ? &nodes[i + 1] : 0;
  }
  return sum(nodes, 3);
}

void _start(void) {
  long r = main();
#if defined(__x86_64__)
  __asm__ volatile("syscall" : : "a"(60), "D"(r));
#elif defined(__aarch64__)
  register long x0 __asm__("x0") = r;
  register long x8 __asm__("x8") = 93;
  __asm__ volatile("svc #0" : : "r"(x0), "r"(x8));
#endif
  for (;;) {
  }
}
