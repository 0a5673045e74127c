// Makes register-form x87 instructions give what the CPU gives: ST0-7,
// the tags and the status word's flags and condition codes.
//
// Before such an instruction runs the recorder takes the guest's x87 state
// (every exception masked, so the host never traps); after it, the host
// runs the same instruction on that state (x87_host_ops.h), and where the
// result differs from Unicorn's it goes into the emulator, so the trace and
// the rest of the run see what the CPU computes. The guest's control word
// is kept; an exception it unmasks is not delivered (docs/recording.md).
#pragma once
#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "tools/recorder/sse_host_eval.h"
#include "tools/recorder/x87_state.h"

namespace ttd::rec {

// op X87Register with the opcode and ModRM bytes for an instruction the
// host runs (x87_runs_on_host), else op None.
HostFpOp classify_x87(const cs_insn& insn);

class X87HostEval {
 public:
  void before(uc_engine* uc);
  // Returns true if it changed the emulator's x87 state.
  bool after(uc_engine* uc, const HostFpOp& op);

 private:
  FxsaveImage image_;
  uint16_t fcw_ = 0;
};

}  // namespace ttd::rec
