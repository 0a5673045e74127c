// Makes SSE floating-point instructions give what the CPU gives: the
// result and MXCSR's sticky exception flags.
//
// Unicorn 2.0.1 never sets MXCSR's exception flags (a program's
// fetestexcept saw none, numpy printed no "divide by zero" warning) and,
// where both operands of a lane are NaN, returns another NaN than x86. For
// the legacy SSE arithmetic, compare, sqrt, min/max, round and conversion
// instructions (sse_host_ops.h lists them) the recorder reads the operands
// before the instruction runs, runs the same instruction on the host CPU
// under the guest's rounding control, FTZ and DAZ, and afterwards writes
// the host's result and the flags it raised into the emulator, so the trace
// and the rest of the run see what the CPU computes.
//
// An exception the guest unmasked in MXCSR traps as natively: after()
// reports it and the recording session delivers SIGFPE at the instruction.
#pragma once
#include <cstdint>

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "tools/recorder/sse_host_ops.h"

namespace ttd::rec {

// What an instruction needs from the host evaluation; op None for almost
// all. SSE here; op X87Register / X87Memory: an x87 instruction, dst its
// opcode and src its ModRM byte / ModRM reg field (x87_host_eval.h).
struct HostFpOp {
  static constexpr uint8_t kNone = 0xff;     // no xmm destination input
  static constexpr uint8_t kMemory = 0xff;   // src is the memory operand
  static constexpr uint8_t kGpr = 0x10;      // src 0x10 + n: general register n
  HostFpOpcode op = HostFpOpcode::None;
  uint8_t dst = kNone;  // xmm register whose value is an input (and the result's place)
  uint8_t src = kMemory;
  uint8_t imm = 0;
};
static_assert(sizeof(HostFpOp) == 4);

// From Capstone's decode (x86-64 only; anything else gives op None).
HostFpOp classify_sse(const cs_insn& insn);

class SseHostEval {
 public:
  // Before the instruction runs: its register operands.
  void before(uc_engine* uc, const HostFpOp& op);
  // The memory operand's address, from the read hook while it runs.
  // A 16-byte operand may arrive as two 8-byte reads: the first is its start.
  void on_read(uint64_t addr) {
    if (have_src_addr_) return;
    src_addr_ = addr;
    have_src_addr_ = true;
  }
  // After it ran: writes the host's result where it differs from the
  // emulator's, and ORs the raised flags into MXCSR. Returns the raised
  // flags the guest's MXCSR leaves unmasked (MXCSR bits 0-5): when not 0,
  // the CPU would have trapped (#XM, SIGFPE) without writing a result, so
  // only MXCSR's flags are set and the caller undoes the rest.
  uint32_t after(uc_engine* uc, const HostFpOp& op);
  // Puts back the xmm destination's value from before the instruction.
  void undo(uc_engine* uc, const HostFpOp& op) const {
    if (op.dst != HostFpOp::kNone && writes_xmm(op.op)) uc_reg_write(uc, UC_X86_REG_XMM0 + op.dst, dst_.b);
  }

 private:
  Xmm dst_, src_;
  uint64_t src_addr_ = 0;
  bool have_src_addr_ = false;
};

}  // namespace ttd::rec
