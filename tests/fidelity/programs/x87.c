// x87 state: finit, fld/fld1/fldz, fmul/fadd, fsave/frstor round trips,
// fxch and fstp. Values are exact (no precision exception) and the stack
// never under- or overflows, so the status word depends only on the stack
// top and condition codes.
#include "start.h"

double fid_in[4] = {1.5, 2.0, -3.25, 0.125};
double fid_res[8];
unsigned char fid_save[2][108];

void fid_main(void) {
  __asm__ volatile(
      "finit\n\t"
      "fld1\n\t"
      "fldl fid_in(%%rip)\n\t"
      "fmul %%st(1), %%st\n\t"
      "fldl fid_in+8(%%rip)\n\t"
      "fmulp\n\t"
      "fldl fid_in+16(%%rip)\n\t"
      "fadd %%st(1), %%st\n\t"
      "fldz\n\t"
      "fxch %%st(2)\n\t"
      "fnsave fid_save(%%rip)\n\t"
      "fld1\n\t"
      "fldl fid_in+24(%%rip)\n\t"
      "frstor fid_save(%%rip)\n\t"
      "fmull fid_in+8(%%rip)\n\t"
      "fstpl fid_res(%%rip)\n\t"
      "fstpl fid_res+8(%%rip)\n\t"
      "fnsave fid_save+108(%%rip)\n\t"
      "finit\n\t"
      "fldl fid_in+24(%%rip)\n\t"
      "fld %%st(0)\n\t"
      "faddp\n\t"
      "fstpl fid_res+16(%%rip)\n\t"
      :
      :
      : "memory", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)");
}
