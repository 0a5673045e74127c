// Runs one x87 instruction (register or memory form) on the host CPU.
//
// Unicorn 2.0.1 (QEMU 5) computes f2xm1, fyl2x, fyl2xp1, fptan, fpatan,
// fsin, fcos, fsincos, fprem and fprem1 through the host's double
// precision C library, so long double results lose their last 11 bits
// (expl(1.0L), logl, atan2l, powl come out wrong) and fprem's reduction
// goes wrong (remainderl(1e30L, 3) gave 1, not 0); and it sets none of the
// status word's exception flags. The recorder runs on an x86-64 CPU: with
// the guest's x87 state loaded (FXRSTOR) the host executes the same two
// instruction bytes and FXSAVE gives back the result and the flags.
//
// Register forms (opcode D8-DF, ModRM mod 11) depend on nothing but the
// x87 state; memory forms also on their operand, which the caller copies.
// fcmov (reads EFLAGS) and the control instructions are left to Unicorn.
#pragma once
#include <cstdint>

#include "tools/recorder/x87_state.h"

namespace ttd::rec {

// Memory forms (ModRM mod 00-10): the operation is the opcode and the ModRM
// reg field; the operand is a host buffer the caller fills (a load) or
// reads afterwards (a store). Its size, 0 for forms the host does not run
// here (fldenv, fldcw, fnstenv, fnstcw, frstor, fnsave, fnstsw, invalid
// encodings), and whether the form stores.
struct X87MemoryForm {
  uint8_t bytes = 0;
  bool stores = false;
};
X87MemoryForm x87_memory_form(uint8_t opcode, uint8_t reg);

// Runs the memory form (opcode, reg) on `image` with its operand in
// `operand` (at least 16 bytes). False as run_x87_on_host.
bool run_x87_memory_on_host(uint8_t opcode, uint8_t reg, FxsaveImage& image, uint8_t* operand);

// Whether (opcode, modrm) is a documented register-form x87 instruction the
// host runs here.
bool x87_runs_on_host(uint8_t opcode, uint8_t modrm);

// Runs it on `image` (FXSAVE layout: FCW, FSW, tags, ST0-7; its MXCSR must
// be valid) and leaves the result there. The host's x87 state is left as
// the recorder keeps it (empty, control word 0x37f) and its MXCSR as it was. False where the host is not x86-64 or the
// instruction is not one x87_runs_on_host accepts.
bool run_x87_on_host(uint8_t opcode, uint8_t modrm, FxsaveImage& image);

}  // namespace ttd::rec
