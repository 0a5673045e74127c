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
  return op.op == SseHostOp::X87Memory || (!is_x87(op) && op.src == HostFpOp::kMemory);
}

class HostFpEval {
 public:
  // Before the instruction runs: its register operands.
  void before(uc_engine* uc, const HostFpOp& op) {
    if (is_x87(op)) x87_.before(uc);
    else sse_.before(uc, op);
  }
  // The memory operand's address: from an access hook while it runs (the
  // first access is its start; the SSE instructions here write no memory),
  // or computed before it.
  void on_access(const HostFpOp& op, uint64_t addr) {
    if (op.op == SseHostOp::X87Memory) x87_.on_access(addr);
    else if (!is_x87(op)) sse_.on_read(addr);
  }
  struct Outcome {
    uint32_t unmasked = 0;                   // SSE: exceptions that trap (SseHostEval::after)
    std::optional<X87StoreCorrection> store;  // x87: a store's bytes, for the trace
  };
  // After it ran: the host's result into the emulator.
  Outcome after(uc_engine* uc, const HostFpOp& op) {
    Outcome o;
    if (is_x87(op)) o.store = x87_.after(uc, op);
    else o.unmasked = sse_.after(uc, op);
    return o;
  }
  // An SSE instruction that trapped: its xmm destination back.
  void undo(uc_engine* uc, const HostFpOp& op) const { sse_.undo(uc, op); }

 private:
  SseHostEval sse_;
  X87HostEval x87_;
};

}  // namespace ttd::rec
