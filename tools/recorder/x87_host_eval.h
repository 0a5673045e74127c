// Makes x87 arithmetic give what the CPU gives: ST0-7, the tags, the
// status word's flags and condition codes, and the bytes a store writes.
//
// Before such an instruction runs the recorder takes the guest's x87 state;
// after it, the host runs the same instruction on that state, under the
// guest's control word (x87_host_ops.h), and where the result differs from
// Unicorn's it goes into the emulator, so the trace and the rest of the run
// see what the CPU computes, an exception the guest unmasked included: the
// destination it leaves alone, the store it suppresses, FSW.ES.
//
// Such an exception is delivered as the CPU does, at the next waiting x87
// instruction (#MF: every x87 instruction but the FN* ones, fwait, MMX):
// before() reports it pending and the instruction does not run. The host
// never traps: it runs an instruction only when nothing is pending, and
// follows it with non-waiting ones only (fxsave, fninit).
#pragma once
#include <optional>

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "tools/recorder/sse_host_eval.h"
#include "tools/recorder/x87_state.h"

namespace ttd::rec {

// op X87Register with the opcode and ModRM bytes for a register form the
// host runs (x87_runs_on_host), op X87Memory with the opcode and the ModRM
// reg field for a memory form (x87_memory_form), op X87Wait for any other
// waiting x87 instruction (fwait, fldcw, fldenv, frstor, fcmov ...) and for
// MMX instructions and SSE ones with an mm register operand, op
// KeepX87Stack for cvtpi2ps/cvtpi2pd from memory, else op None (the
// no-wait FN* instructions among them).
HostFpOp classify_x87(const cs_insn& insn);
inline bool is_x87(const HostFpOp& op) {
  return op.op == HostFpOpcode::X87Register || op.op == HostFpOpcode::X87Memory || op.op == HostFpOpcode::X87Wait ||
         op.op == HostFpOpcode::KeepX87Stack;
}
// The unmasked exception flags a waiting x87 instruction would signal
// (#MF) given the status and control words: FSW & ~FCW, low six bits.
inline uint16_t x87_unmasked(uint16_t fsw, uint16_t fcw) { return uint16_t(fsw & ~fcw & 0x3f); }
// FSW.B and FSW.ES: an unmasked exception is pending.
constexpr uint16_t kX87PendingBits = 0x8080;

// A store's bytes as the CPU writes them, where Unicorn wrote others.
struct X87StoreCorrection {
  uint64_t addr = 0;
  uint8_t bytes[16] = {};
  uint8_t size = 0;
};

class X87HostEval {
 public:
  // Takes the guest's state; returns the unmasked exceptions pending, which
  // the instruction signals instead of running (0: it runs).
  uint16_t before(uc_engine* uc);
  // The memory operand's address, from the access hook before the access
  // happens (the first access is its start), or computed before the
  // instruction runs; a store form also keeps the bytes it will replace,
  // which stay if the CPU suppresses the store.
  void on_access(uc_engine* uc, const HostFpOp& op, uint64_t addr);
  // Writes the host's x87 state into the emulator where it differs. For a
  // store whose bytes differ it also writes the emulator's memory and
  // returns them, for the trace (after the instruction's own writes).
  std::optional<X87StoreCorrection> after(uc_engine* uc, const HostFpOp& op);

 private:
  FxsaveImage image_;
  uint64_t addr_ = 0;
  alignas(16) uint8_t old_[16] = {};  // a store form's operand before it ran
  bool have_addr_ = false;
  bool have_old_ = false;
  bool pending_ = false;
};

}  // namespace ttd::rec
