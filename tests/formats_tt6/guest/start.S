# Entry point of the TT6 test guest: sets up a stack, runs guest_main (C),
# then the instructions compiled C code rarely uses, so every TT6 record
# class and memory-access shape occurs: load/store multiple and string,
# byte-reversed, cache block ops, AltiVec element accesses, dst, lwarx /
# stwcx., a trap word (TT6E's synthetic trap return) and sc.
  .section .text.start, "ax"
  .globl _start
_start:
  lis   r1, stack_top@ha
  addi  r1, r1, stack_top@l
  li    r0, 0
  stwu  r0, -16(r1)
  bl    guest_main
  .globl guest_tail
guest_tail:
  lis   r9, scratch@ha
  addi  r9, r9, scratch@l
  li    r3, 0x1111
  li    r4, 0x2222
  lis   r5, 0x3344
  ori   r5, r5, 0x5566
  stmw  r27, 0(r9)          # 5 words
  lmw   r28, 4(r9)          # 4 words
  stswi r3, r9, 7           # 7 bytes from r3, r4
  lswi  r10, r9, 6          # 6 bytes into r10, r11
  li    r6, 9
  mtxer r6
  li    r7, 16
  stswx r3, r9, r7          # XER[25:31] = 9 bytes
  lswx  r12, r9, r7
  li    r6, 0
  mtxer r6
  lswx  r12, r9, r7         # zero bytes: no access
  sthbrx r5, r9, r7
  lhbrx r13, r9, r7
  stwbrx r5, 0, r9
  lwbrx r14, 0, r9
  stb   r5, 3(r9)
  lbzu  r15, 3(r9)
  sthu  r4, 2(r9)
  lhau  r16, 0(r9)
  lis   r9, scratch@ha
  addi  r9, r9, scratch@l

  # Floating point: single and double, the indexed forms and stfiwx.
  lfd   f1, 64(r9)
  fadd  f2, f1, f1
  stfd  f2, 72(r9)
  li    r7, 72
  lfdx  f3, r9, r7
  fmul  f4, f3, f2
  stfs  f4, 80(r9)
  lfs   f5, 80(r9)
  fctiwz f6, f4
  li    r7, 84
  stfiwx f6, r9, r7
  stfsx f3, r9, r7
  lfsx  f7, r9, r7

  # Cache block operations (TT6E gives their addresses).
  addi  r8, r9, 128
  dcbt  0, r8
  dcbtst 0, r8
  dcbz  0, r8
  dcbst 0, r8
  dcbf  0, r8
  icbi  0, r8
  li    r7, 0x100
  dst   r8, r7, 0
  dss   0

  # AltiVec: whole vectors and elements.
  lvx   v2, 0, r8
  li    r7, 5
  lvebx v3, r8, r7
  li    r7, 6
  lvehx v4, r8, r7
  li    r7, 8
  lvewx v5, r8, r7
  vspltisb v6, 7
  li    r7, 19
  stvebx v6, r8, r7
  li    r7, 22
  stvehx v6, r8, r7
  li    r7, 24
  stvewx v6, r8, r7
  stvx  v6, 0, r9
  mfvscr v7
  mtvscr v7
  li    r7, 0xff
  mtspr 256, r7             # vrsave

  # Reservations: one store-conditional that succeeds, one that fails.
  lwarx r20, 0, r9
  addi  r20, r20, 1
  stwcx. r20, 0, r9
  li    r21, 42
  stwcx. r21, 0, r9         # no reservation left: fails

  # Condition register, count register loop, link register.
  li    r22, 4
  mtctr r22
1:
  addi  r23, r23, 3
  cmpwi cr1, r23, 100
  bdnz  1b
  mfcr  r24
  mtcrf 0xff, r24
  lis   r25, after_trap@ha
  addi  r25, r25, after_trap@l
  mtlr  r25
  twi   31, r0, 0           # traps: Amber's TT6E writes b 0x700 + rfi
after_trap:
  li    r0, 1               # "exit"
  sc
  nop
  .globl guest_end
guest_end:
  b     guest_end

  .section .bss
  .balign 64
  .globl scratch
scratch:
  .space 256
  .balign 16
stack:
  .space 4096
  .globl stack_top
stack_top:
  .space 64
