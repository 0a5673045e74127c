// Flag-heavy integer code at -O1: adds, subs, compares, lea/mov/`sub
// $8,%rsp` right after flag-setting instructions, parity branches (jp/jnp),
// setp, pushf, and DF set and cleared around a backwards string copy.
#include "start.h"

long fid_out[96];
unsigned char fid_bytes[64];

__attribute__((noinline)) long mix(long a, long b) {
  long r = a - b;
  if (r > 7) r += a * 3;
  else r -= b + 11;
  return r ^ (a & 0x7f);
}

__attribute__((noinline)) long parity_walk(long x) {
  long n = 0, y;
  for (int i = 0; i < 12; ++i) {
    unsigned char p;
    y = x;
    // add sets PF; setp/jp read it, the lea after it must not disturb it.
    __asm__ volatile(
        "add %2, %0\n\t"
        "lea 1(%0), %%rcx\n\t"
        "setp %1\n\t"
        "jnp 1f\n\t"
        "inc %0\n"
        "1:\n\t"
        "sub $3, %0\n\t"
        "mov %0, %%rcx\n\t"
        "jp 2f\n\t"
        "dec %0\n"
        "2:\n"
        : "+r"(y), "=q"(p)
        : "r"(x * 5 + i)
        : "rcx", "cc");
    n += p + (y & 3);
    x = x * 7 + 1;
  }
  return n;
}

__attribute__((noinline)) long flags_image(long a, long b) {
  long f;
  __asm__ volatile("cmp %2, %1\n\tpushfq\n\tpop %0" : "=r"(f) : "r"(a), "r"(b) : "cc");
  return f & 0xcd5;
}

__attribute__((noinline)) void backwards_copy(void) {
  for (int i = 0; i < 32; ++i) fid_bytes[i] = (unsigned char)(i * 13 + 1);
  unsigned char* src = fid_bytes + 31;
  unsigned char* dst = fid_bytes + 63;
  long n = 32;
  __asm__ volatile("std\n\trep movsb\n\tcld" : "+S"(src), "+D"(dst), "+c"(n) : : "memory", "cc");
}

__attribute__((noinline)) long nested(long x) {
  // A call inside a call: the callee's frame setup (`sub $8,%rsp`,
  // `push`) follows the compare that decided to call.
  if (x & 1) return mix(x, x >> 1) + 1;
  return mix(x >> 2, x) - 1;
}

void fid_main(void) {
  long acc = 1;
  for (long i = 0; i < 40; ++i) {
    acc += mix(i * 3, acc & 0xff);
    acc ^= nested(acc + i);
    if ((acc & 0xf) == 3) acc -= 17;
    fid_out[i] = acc;
  }
  fid_out[40] = parity_walk(acc);
  for (long i = 0; i < 20; ++i) fid_out[41 + i] = flags_image(i * 9 - 50, acc & 31);
  backwards_copy();
  fid_out[61] = (long)fid_bytes[40];
}
