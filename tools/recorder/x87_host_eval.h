// Makes x87 arithmetic give what the CPU gives: ST0-7, the tags, the
// status word's flags and condition codes, and the bytes a store writes.
//
// Before such an instruction runs the recorder takes the guest's x87 state
// (every exception masked, so the host never traps); after it, the host
// runs the same instruction on that state (x87_host_ops.h), and where the
// result differs from Unicorn's it goes into the emulator, so the trace and
// the rest of the run see what the CPU computes. The guest's control word
// is kept; an exception it unmasks is not delivered (docs/recording.md).
#pragma once
#include <optional>

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "tools/recorder/sse_host_eval.h"
#include "tools/recorder/x87_state.h"

namespace ttd::rec {

// op X87Register with the opcode and ModRM bytes for a register form the
// host runs (x87_runs_on_host), op X87Memory with the opcode and the ModRM
// reg field for a memory form (x87_memory_form), else op None.
HostFpOp classify_x87(const cs_insn& insn);
inline bool is_x87(const HostFpOp& op) { return op.op == SseHostOp::X87Register || op.op == SseHostOp::X87Memory; }

// A store's bytes as the CPU writes them, where Unicorn wrote others.
struct X87StoreCorrection {
  uint64_t addr = 0;
  uint8_t bytes[16] = {};
  uint8_t size = 0;
};

class X87HostEval {
 public:
  void before(uc_engine* uc);
  // The memory operand's address, from the access hook while it runs (the
  // first access is its start).
  void on_access(uint64_t addr) {
    if (have_addr_) return;
    addr_ = addr;
    have_addr_ = true;
  }
  // Writes the host's x87 state into the emulator where it differs. For a
  // store whose bytes differ it also writes the emulator's memory and
  // returns them, for the trace (after the instruction's own writes).
  std::optional<X87StoreCorrection> after(uc_engine* uc, const HostFpOp& op);

 private:
  FxsaveImage image_;
  uint16_t fcw_ = 0;
  uint64_t addr_ = 0;
  bool have_addr_ = false;
};

}  // namespace ttd::rec
