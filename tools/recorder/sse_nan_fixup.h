// Makes SSE add/sub/mul/div return the NaN an x86 CPU returns.
//
// When both operands of a lane are NaN, x86 returns the first source
// operand (the destination register), quieted. Unicorn 2.0.1 uses QEMU's
// softfloat rule instead (for x86 targets, the NaN with the larger
// significand, as the x87 does), so
// `mulps` could return the source's NaN. The recorder reads both operands
// before such an instruction runs and, after it, rewrites the lanes where
// both were NaN in the emulator itself, so the trace and the rest of the
// execution see what the CPU computes. Lanes with at most one NaN, and all
// other instructions, are left alone (there Unicorn already agrees).
#pragma once
#include <cstdint>

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

namespace ttd::rec {

// What an instruction needs from the fix-up; kind None for almost all.
struct SseNanOp {
  enum class Kind : uint8_t { None, Packed32, Scalar32, Packed64, Scalar64 };
  Kind kind = Kind::None;
  uint8_t dst = 0;   // xmm register number
  int8_t src = -1;   // xmm register number, or -1 for a memory operand
};

// From Capstone's decode (x86-64 only; anything else gives None).
SseNanOp classify_sse_nan(const cs_insn& insn);

class SseNanFixup {
 public:
  // Before the instruction runs: its operands.
  void before(uc_engine* uc, const SseNanOp& op);
  // The memory operand's address, from the read hook while it runs.
  // A 16-byte operand may arrive as two 8-byte reads: the first is its start.
  void on_read(uint64_t addr) {
    if (have_src_addr_) return;
    src_addr_ = addr;
    have_src_addr_ = true;
  }
  // After it ran: corrects the destination lanes where both inputs were NaN.
  // Returns true if it changed the emulator's register.
  bool after(uc_engine* uc, const SseNanOp& op);

 private:
  alignas(16) uint8_t dst_[16] = {}, src_[16] = {};
  uint64_t src_addr_ = 0;
  bool have_src_addr_ = false;
};

}  // namespace ttd::rec
