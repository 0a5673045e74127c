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

__attribute__((noinline)) long mixed_ops(long x, long n) {
  // xor-zeroing, neg, adc/sbb, imul, variable shifts, bsf, bt, cmov,
  // lahf/sahf and popf, each followed by flag-neutral instructions.
  long r = 0;
  __asm__ volatile(
      "xor %%eax, %%eax\n\t"
      "lea 3(%%rax), %%rdx\n\t"
      "mov %1, %%rax\n\t"
      "neg %%rax\n\t"
      "mov %%rax, %%rdx\n\t"
      "adc $5, %%rdx\n\t"
      "sbb %%rax, %%rdx\n\t"
      "lea (%%rdx,%%rdx,2), %%rdx\n\t"
      "imul %%rdx, %%rax\n\t"
      "mov %2, %%rcx\n\t"
      "shl %%cl, %%rdx\n\t"
      "sub $8, %%rsp\n\t"
      "add $8, %%rsp\n\t"
      "bsf %%rdx, %%rcx\n\t"
      "bt $3, %%rdx\n\t"
      "cmovc %%rcx, %%rax\n\t"
      "cmp %%rdx, %%rax\n\t"
      "lahf\n\t"
      "xor $0x41, %%ah\n\t"
      "sahf\n\t"
      "setp %%cl\n\t"
      "pushfq\n\t"
      "xorq $0x85, (%%rsp)\n\t"
      "popfq\n\t"
      "setz %%ch\n\t"
      "add %%rcx, %%rax\n\t"
      "mov %%rax, %0\n\t"
      : "=r"(r)
      : "r"(x), "r"(n)
      : "rax", "rcx", "rdx", "cc", "memory");
  return r;
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
  for (long i = 0; i < 24; ++i) fid_out[62 + i] = mixed_ops(fid_out[i] ^ (i << 7), i & 7);
  backwards_copy();
  fid_out[61] = (long)fid_bytes[40];
}
