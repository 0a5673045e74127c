// POPCNT, MOVBE and PCLMULQDQ, which Unicorn 2.0.1 calls invalid, and PDEP and PEXT,
// which it computes wrong; the recorder runs them itself
// (tools/recorder/missing_instructions.h): every width, register and memory
// operands, a zero source (ZF), flags set before each so that what POPCNT
// clears and MOVBE and PDEP keep shows, stores into memory.
#include "start.h"

unsigned long fid_data[8] __attribute__((aligned(16))) = {0xf00d00000000beefull, 0x8000000000000001ull, 0, 0, 0, 0, 0, 0};

void fid_main(void) {
  unsigned long r = 0;
  for (int i = 0; i < 3; ++i) {
    __asm__ volatile(
        "mov $-1, %%rax\n\t"
        "add $1, %%rax\n\t"          // CF ZF PF AF set
        "popcnt %%rbx, %%rax\n\t"    // clears them all but ZF (rbx != 0)
        "popcnt %%rdx, %%rcx\n\t"    // zero source: ZF
        "add $1, %%rcx\n\t"
        "popcnt (%%rsi), %%r8\n\t"
        "popcnt 8(%%rsi), %%r9d\n\t"
        "popcnt 2(%%rsi), %%r10w\n\t"
        "stc\n\t"
        "movbe (%%rsi), %%r11\n\t"   // flags kept
        "movbe 4(%%rsi), %%r12d\n\t"
        "movbe 6(%%rsi), %%r13w\n\t"
        "movbe %%r11, 16(%%rsi)\n\t"
        "movbe %%r12d, 24(%%rsi)\n\t"
        "movbe %%r13w, 32(%%rsi)\n\t"
        "pdep %%rbx, %%r11, %%r14\n\t"
        "pext 8(%%rsi), %%r11, %%r15\n\t"
        "pdep %%ebx, %%r12d, %%r14d\n\t"
        "pext (%%rsi), %%r12d, %%r15d\n\t"
        "add %%r14, %%r8\n\t"
        "add %%r15, %%r8\n\t"
        "add %%r8, %%rax\n\t"
        "add %%rax, %0\n\t"
        "movq %%rbx, %%xmm1\n\t"
        "movq %%r11, %%xmm2\n\t"
        "pclmulqdq $0x00, %%xmm1, %%xmm2\n\t"  // register source
        "pclmulqdq $0x10, (%%rsi), %%xmm1\n\t" // aligned memory source, its high quadword
        "movdqa %%xmm2, 48(%%rsi)\n\t"
        : "+r"(r)
        : "b"(0x00ff00ff00ff00ffull << i), "d"(0ull), "S"(fid_data)
        : "rax", "rcx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "xmm1", "xmm2", "memory", "cc");
  }
  fid_data[7] = r;
}
