// The host evaluation of one floating-point instruction, SSE
// (sse_host_eval.h) or x87 (x87_host_eval.h), behind one interface: the
// recording session's hooks and an unrecorded fork child's code hook call
// these for every instruction whose HostFpOp is not None.
#pragma once
#include <cstdint>
#include <optional>

#include <unicorn/unicorn.h>

#include "tools/recorder/sse_host_eval.h"
#include "tools/recorder/x87_host_eval.h"

namespace ttd::rec {

// Whether op reads or writes a memory operand (its address is needed).
inline bool has_memory_operand(const HostFpOp& op) {
  return op.op == HostFpOpcode::X87Memory || (!is_x87(op) && op.src == HostFpOp::kMemory);
}

class HostFpEval {
 public:
  // Before the instruction runs: its register operands. Returns the
  // unmasked x87 exceptions an x87 instruction finds pending (#MF,
  // x87_host_eval.h), 0 if it runs.
  uint16_t before(uc_engine* uc, const HostFpOp& op) {
    if (op.op == HostFpOpcode::X87Wait) return x87_pending(uc);
    if (op.op == HostFpOpcode::KeepX87Stack) {
      uc_reg_read(uc, UC_X86_REG_FPSW, &kept_fsw_);
      uc_reg_read(uc, UC_X86_REG_FPTAG, &kept_tags_);
      return 0;
    }
    if (is_x87(op)) return x87_.before(uc);
    sse_.before(uc, op);
    return 0;
  }
  // The memory operand's address: from an access hook while it runs (the
  // first access is its start; the SSE instructions here write no memory),
  // or computed before it.
  void on_access(uc_engine* uc, const HostFpOp& op, uint64_t addr) {
    if (op.op == HostFpOpcode::X87Memory) x87_.on_access(uc, op, addr);
    else if (!is_x87(op)) sse_.on_read(addr);
  }
  struct Outcome {
    uint32_t unmasked = 0;                   // SSE: exceptions that trap (SseHostEval::after)
    std::optional<X87StoreCorrection> store;  // x87: a store's bytes, for the trace
  };
  // After it ran: the host's result into the emulator.
  Outcome after(uc_engine* uc, const HostFpOp& op) {
    Outcome o;
    if (op.op == HostFpOpcode::X87Wait) return o;
    if (op.op == HostFpOpcode::KeepX87Stack) {
      uc_reg_write(uc, UC_X86_REG_FPSW, &kept_fsw_);
      uc_reg_write(uc, UC_X86_REG_FPTAG, &kept_tags_);
      return o;
    }
    if (is_x87(op)) o.store = x87_.after(uc, op);
    else o.unmasked = sse_.after(uc, op);
    return o;
  }
  // An SSE instruction that trapped: its xmm destination back.
  void undo(uc_engine* uc, const HostFpOp& op) const { sse_.undo(uc, op); }

 private:
  static uint16_t x87_pending(uc_engine* uc) {
    uint64_t fsw = 0, fcw = 0;
    uc_reg_read(uc, UC_X86_REG_FPSW, &fsw);
    uc_reg_read(uc, UC_X86_REG_FPCW, &fcw);
    return x87_unmasked(uint16_t(fsw), uint16_t(fcw));
  }
  SseHostEval sse_;
  X87HostEval x87_;
  uint64_t kept_fsw_ = 0, kept_tags_ = 0;  // KeepX87Stack's, before it ran
};

}  // namespace ttd::rec
