// x87 instructions whose results Unicorn 2.0.1 (QEMU 5) computes in double
// precision (f2xm1, fyl2x, fyl2xp1, fptan, fpatan, fsin, fcos, fsincos,
// fprem, fprem1) and the status word's exception flags and condition codes
// (inexact, divide by zero, invalid, fprem's quotient bits), register forms
// after exact loads. The recorder runs these on the host
// (x87_host_eval.h); every st, fstat and tag is compared at every EID.
#include "start.h"

double fid_x[] = {0.7, 3.0, 1e30, 0.0, -1.0, 0.25, 4.9e-324};
double fid_d_out[4];
float fid_f_out[2];
long long fid_i64;
int fid_i32;
short fid_i16;
unsigned char fid_t80[10];

void fid_main(void) {
  __asm__ volatile(
      "finit\n\t"
      // f2xm1 of 0.7, then fscale-free exp parts
      "fldl fid_x(%%rip)\n\t f2xm1\n\t fstp %%st(0)\n\t fnclex\n\t"
      // fyl2x: 1 * log2(3); fyl2xp1: 1 * log2(1 + 0.25)
      "fld1\n\t fldl fid_x+8(%%rip)\n\t fyl2x\n\t fstp %%st(0)\n\t fnclex\n\t"
      "fld1\n\t fldl fid_x+40(%%rip)\n\t fyl2xp1\n\t fstp %%st(0)\n\t fnclex\n\t"
      // fpatan: atan2(0.7, 3); fptan, fsin, fcos, fsincos of 0.7
      "fldl fid_x(%%rip)\n\t fldl fid_x+8(%%rip)\n\t fpatan\n\t fstp %%st(0)\n\t fnclex\n\t"
      "fldl fid_x(%%rip)\n\t fptan\n\t fstp %%st(0)\n\t fstp %%st(0)\n\t fnclex\n\t"
      "fldl fid_x(%%rip)\n\t fsin\n\t fstp %%st(0)\n\t fnclex\n\t"
      "fldl fid_x(%%rip)\n\t fcos\n\t fstp %%st(0)\n\t fnclex\n\t"
      "fldl fid_x(%%rip)\n\t fsincos\n\t fstp %%st(0)\n\t fstp %%st(0)\n\t fnclex\n\t"
      // fprem and fprem1 of 1e30 by 3: quotient bits in C0 C1 C3, C2 until done
      "fldl fid_x+8(%%rip)\n\t fldl fid_x+16(%%rip)\n\t"
      "1:\n\t fprem\n\t fnstsw %%ax\n\t test $0x400, %%ax\n\t jnz 1b\n\t fstp %%st(0)\n\t"
      "fldl fid_x+16(%%rip)\n\t"
      "2:\n\t fprem1\n\t fnstsw %%ax\n\t test $0x400, %%ax\n\t jnz 2b\n\t fstp %%st(0)\n\t fstp %%st(0)\n\t fnclex\n\t"
      // inexact: 1 / 3; divide by zero: 1 / 0; invalid: sqrt(-1) and 0 / 0
      "fld1\n\t fldl fid_x+8(%%rip)\n\t fdivrp\n\t fstp %%st(0)\n\t fnclex\n\t"
      "fld1\n\t fldz\n\t fdivrp\n\t fstp %%st(0)\n\t fnclex\n\t"
      "fldl fid_x+32(%%rip)\n\t fsqrt\n\t fstp %%st(0)\n\t fnclex\n\t"
      "fldz\n\t fldz\n\t fdivp\n\t fcomi %%st(0), %%st\n\t fstp %%st(0)\n\t fnclex\n\t"
      // a NaN compared: fucom leaves IE clear for a quiet NaN, fcom sets it
      "fldz\n\t fldz\n\t fdivp\n\t fnclex\n\t fld1\n\t fucom %%st(1)\n\t fcom %%st(1)\n\t fstp %%st(0)\n\t fstp %%st(0)\n\t"
      // memory forms: rounding stores, out-of-range integer stores, a denormal load
      "fld1\n\t fldl fid_x+8(%%rip)\n\t fdivrp\n\t fstl fid_d_out(%%rip)\n\t fsts fid_f_out(%%rip)\n\t"
      "fstpt fid_t80(%%rip)\n\t fnclex\n\t"
      "fldl fid_x+16(%%rip)\n\t fmull fid_x+16(%%rip)\n\t fistps fid_i16(%%rip)\n\t fnclex\n\t"
      "fldl fid_x+16(%%rip)\n\t fistl fid_i32(%%rip)\n\t fisttpll fid_i64(%%rip)\n\t fnclex\n\t"
      "fldl fid_x+48(%%rip)\n\t fstp %%st(0)\n\t fnclex\n\t"
      "fldl fid_x(%%rip)\n\t fdivl fid_x+8(%%rip)\n\t fmuls fid_f_out(%%rip)\n\t fiaddl fid_i32(%%rip)\n\t"
      "fstpl fid_d_out+8(%%rip)\n\t"
      "fildll fid_i64(%%rip)\n\t fldt fid_t80(%%rip)\n\t fucompp\n\t"
      "fnclex\n\t"
      :
      :
      : "memory", "rax", "cc", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)");
}
