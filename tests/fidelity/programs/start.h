// Entry for the fidelity programs: no C library, no dependence on where
// the kernel put the initial stack (the first instruction moves rsp onto a
// stack in .bss, so native and recorded runs agree from EID 1 on), and an
// exit through the raw syscall.
#pragma once

#define FID_STACK_BYTES 16384
char fid_stack[FID_STACK_BYTES] __attribute__((aligned(64)));

void fid_main(void);

__attribute__((noreturn)) void fid_exit(long code) {
  __asm__ volatile("syscall" : : "a"(60L), "D"(code) : "rcx", "r11", "memory");
  __builtin_unreachable();
}

__asm__(
    ".globl _start\n"
    "_start:\n"
    "  lea fid_stack+16384(%rip), %rsp\n"
    "  xor %ebp, %ebp\n"
    "  call fid_main\n"
    "  mov $0, %edi\n"
    "  call fid_exit\n");
