/* The PowerPC program the TT6 tests trace (compiled by build_guest.sh with
 * powerpc-linux-gnu-gcc; the image is checked in as guest_image.inc so the
 * tests need no cross compiler). Freestanding: no libc, no system calls but
 * the one start.S makes. Each function exercises a different part of the
 * trace formats: calls and returns, loops, byte/halfword/word loads and
 * stores, floating point, AltiVec, and "pthread" calls that the tracer
 * marks with synchronisation escape records the way Amber -p does. */
#include <altivec.h>

typedef struct { volatile int locked; } mutex_t;
typedef struct { volatile int waiters; } cond_t;

/* The synchronisation entry points the tracer knows by address. */
__attribute__((noinline)) void guest_mutex_lock(mutex_t* m) { m->locked = 1; }
__attribute__((noinline)) int guest_mutex_trylock(mutex_t* m) {
  if (m->locked) return 16; /* EBUSY */
  m->locked = 1;
  return 0;
}
__attribute__((noinline)) void guest_mutex_unlock(mutex_t* m) { m->locked = 0; }
__attribute__((noinline)) void guest_cond_signal(cond_t* c) { c->waiters -= c->waiters > 0; }
__attribute__((noinline)) void guest_cond_broadcast(cond_t* c) { c->waiters = 0; }
__attribute__((noinline)) void guest_cond_wait(cond_t* c, mutex_t* m) {
  guest_mutex_unlock(m);
  c->waiters++;
  guest_mutex_lock(m);
}

mutex_t lock;
cond_t ready;

struct node {
  struct node* next;
  short value;
  unsigned char tag;
};
static struct node nodes[6];

__attribute__((noinline)) static int sum_list(const struct node* n) {
  int total = 0;
  for (; n; n = n->next) total += n->value * (n->tag + 1);
  return total;
}

__attribute__((noinline)) static unsigned checksum(const unsigned char* p, int len) {
  unsigned h = 2166136261u;
  for (int i = 0; i < len; ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}

volatile double samples[8] = {1.5, -2.25, 3.0, 0.125, 1e-3, 7.75, -0.5, 2.0};
float single_out[8];

__attribute__((noinline)) static double horner(double x) {
  double acc = 0.0;
  for (int i = 0; i < 8; ++i) acc = acc * x + samples[i];
  return acc;
}

__attribute__((noinline)) static void to_single(void) {
  for (int i = 0; i < 8; ++i) single_out[i] = (float)(samples[i] * 0.5);
}

vector unsigned char vin[2] __attribute__((aligned(16))) = {
    {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
    {200, 100, 50, 25, 12, 6, 3, 1, 0, 255, 128, 64, 32, 16, 8, 4}};
vector unsigned char vout[2] __attribute__((aligned(16)));

__attribute__((noinline)) static void vector_work(void) {
  vector unsigned char a = vec_ld(0, &vin[0]);
  vector unsigned char b = vec_ld(16, &vin[0]);
  vec_st(vec_adds(a, b), 0, &vout[0]);
  vec_st(vec_avg(a, b), 16, &vout[0]);
}

typedef int (*op_fn)(int, int);
__attribute__((noinline)) static int op_add(int a, int b) { return a + b; }
__attribute__((noinline)) static int op_mul(int a, int b) { return a * b; }
__attribute__((noinline)) static int op_sub(int a, int b) { return a - b; }
op_fn ops[3] = {op_add, op_mul, op_sub};

int results[8];

void guest_main(void) {
  for (int i = 0; i < 6; ++i) {
    nodes[i].next = i + 1 < 6 ? &nodes[i + 1] : 0;
    nodes[i].value = (short)(i * 37 - 50);
    nodes[i].tag = (unsigned char)(i * 3);
  }
  guest_mutex_lock(&lock);
  results[0] = sum_list(nodes);
  ready.waiters = 2;
  guest_cond_signal(&ready);
  guest_mutex_unlock(&lock);

  results[1] = (int)checksum((const unsigned char*)nodes, sizeof nodes);
  int acc = 3;
  for (int i = 0; i < 6; ++i) acc = ops[i % 3](acc, i + 2); /* bctrl through a table */
  results[2] = acc;

  if (guest_mutex_trylock(&lock) == 0) {
    results[3] = (int)(horner(0.75) * 1000.0);
    to_single();
    guest_cond_broadcast(&ready);
    guest_mutex_unlock(&lock);
  }
  vector_work();
  guest_cond_wait(&ready, &lock);
  guest_mutex_unlock(&lock);
}
