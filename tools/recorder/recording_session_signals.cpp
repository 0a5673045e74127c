// Signal delivery in the recording loop where it is not a syscall's end
// (docs/recording.md, "Signals"): CPU faults and traps (SIGSEGV, SIGBUS,
// SIGILL, SIGFPE, SIGTRAP) when the guest handles them, and signals
// pending for a thread when it is scheduled. The frame's writes and the
// handler's registers go into the trace before the handler's first step,
// which they are effects of (the faulting instruction itself has no step:
// it did not complete).
#include "tools/recorder/recording_session.h"

namespace ttd::rec {

namespace {

constexpr int32_t kSegvMaperr = 1, kSegvAccerr = 2, kIllIllopc = 1, kIllIllopn = 2, kFpeIntdiv = 1,
                  kBusAdraln = 1, kTrapBrkpt = 1;

bool is_fetch(uc_err e) { return e == UC_ERR_FETCH_UNMAPPED || e == UC_ERR_FETCH_PROT || e == UC_ERR_FETCH_UNALIGNED; }

}  // namespace

void RecordingSession::emit_delivery() {
  if (child_) return;  // a fork's child writes no trace
  for (const KernelEffect& e : kernel_.effects())
    if (e.kind == KernelEffect::Kind::MemWrite) emit_.corrected_memory(e.addr, e.bytes);
  tracker_.diff_all(nullptr, [this](uint16_t index, std::span<const uint8_t> v) { emit_.reg(index, v); });
}

std::optional<uint64_t> RecordingSession::fault_handler(uc_err err) {
  const bool x86 = guest_.id() == ArchId::X86_64;
  SigInfo info;
  info.fault = true;
  FaultTrap trap;
  uint64_t pc = pending_pc_;
  if (!pending_) uc_reg_read(uc_, arch_.pc().unicorn_id, &pc);
  switch (err) {
    case UC_ERR_READ_UNMAPPED:
    case UC_ERR_WRITE_UNMAPPED:
    case UC_ERR_FETCH_UNMAPPED:
    case UC_ERR_READ_PROT:
    case UC_ERR_WRITE_PROT:
    case UC_ERR_FETCH_PROT: {
      if (!bad_access_) return std::nullopt;
      const bool unmapped = err == UC_ERR_READ_UNMAPPED || err == UC_ERR_WRITE_UNMAPPED || err == UC_ERR_FETCH_UNMAPPED;
      info.signo = kSigSegv;
      info.code = unmapped ? kSegvMaperr : kSegvAccerr;
      info.addr = bad_access_->second;
      // x86 page-fault error code: user, write, protection, instruction fetch.
      trap = {14, 4u | (err == UC_ERR_WRITE_UNMAPPED || err == UC_ERR_WRITE_PROT ? 2u : 0u) | (unmapped ? 0u : 1u) |
                      (is_fetch(err) ? 16u : 0u),
              info.addr};
      break;
    }
    case UC_ERR_READ_UNALIGNED:
    case UC_ERR_WRITE_UNALIGNED:
    case UC_ERR_FETCH_UNALIGNED:
      info.signo = kSigBus;
      info.code = kBusAdraln;
      info.addr = bad_access_ ? bad_access_->second : pc;
      break;
    case UC_ERR_INSN_INVALID:
      info.signo = kSigIll;
      info.code = x86 ? kIllIllopn : kIllIllopc;
      info.addr = pc;
      trap.trapno = 6;
      break;
    default: return std::nullopt;
  }
  if (!kernel_.fault_handled(info.signo)) return std::nullopt;
  if (is_fetch(err)) {
    // The jump or call completed; the fault is at its target.
    if (pending_) finish_instruction();
    pc = info.addr;
  }
  emit_.drop_accesses();
  if (!x86) trap = {};
  auto handler = kernel_.deliver_fault(info, pc, trap);
  pending_ = nullptr;
  if (!handler) {  // the stack could not take the frame: Linux's SIGSEGV
    bad_access_.reset();
    return std::nullopt;
  }
  bad_access_.reset();
  emit_delivery();
  return handler;
}

bool RecordingSession::trap_handler(uint32_t intno) {
  const bool x86 = guest_.id() == ArchId::X86_64;
  SigInfo info;
  info.fault = true;
  FaultTrap trap;
  uint64_t resume = pending_pc_;
  bool completed = false;  // a trap (int3) completes; a fault does not
  if (x86) {
    trap.trapno = intno;
    switch (intno) {
      case 0: info = {kSigFpe, kFpeIntdiv}, info.fault = true, info.addr = pending_pc_; break;
      case 3:  // int3: reported after the instruction, si_code SI_KERNEL
        info = {kSigTrap, SigInfo::kKernel}, info.fault = true;
        completed = true;
        break;
      case 6: info = {kSigIll, kIllIllopn}, info.fault = true, info.addr = pending_pc_; break;
      case 13: info = {kSigSegv, SigInfo::kKernel}, info.fault = true; break;  // #GP: privileged instruction
      default: return false;
    }
  } else {
    switch (intno) {
      case 1: info = {kSigIll, kIllIllopc}, info.fault = true, info.addr = pending_pc_; break;  // EXCP_UDEF
      case 7: info = {kSigTrap, kTrapBrkpt}, info.fault = true, info.addr = pending_pc_; break;  // EXCP_BKPT: brk
      default: return false;
    }
  }
  if (!pending_ || !kernel_.fault_handled(info.signo)) return false;
  if (completed) {
    resume = pending_pc_ + pending_size_;
    finish_instruction();
  } else {
    emit_.drop_accesses();
  }
  auto handler = kernel_.deliver_fault(info, resume, trap);
  pending_ = nullptr;
  if (!handler) {  // the stack could not take the frame: Linux's SIGSEGV
    res_.exited = true;
    res_.signal = kSigSegv;
    res_.exit_code = 128 + kSigSegv;
    stop();
    return true;
  }
  emit_delivery();
  redirect(*handler);
  return true;
}

std::optional<uint64_t> RecordingSession::deliver_on_schedule(uint64_t pc) {
  GuestThreads& threads = kernel_.threads();
  // A thread a signal woke from a wait first finishes its call (EINTR),
  // which delivers at its end.
  // So does one a futex wake or a PI hand-over made runnable: its call
  // has a result to return first.
  if (kernel_.signals().interrupted(threads.current().number) || threads.current().wake_result) return pc;
  SyscallOutcome out;
  auto handler = kernel_.deliver_on_schedule(pc, clock_steps(), out);
  if (out.exited || kernel_.frame_failed()) {
    res_.exited = true;
    res_.signal = out.exited ? out.signal : 11;
    res_.exit_code = 128 + res_.signal;
    return std::nullopt;
  }
  if (!handler) return pc;
  emit_delivery();
  return handler;
}

bool RecordingSession::timer_interrupt(uint64_t pc) {
  kernel_.fire_timers(clock_steps(), false);
  const auto handler = deliver_on_schedule(pc);
  if (!handler) {  // a fatal signal: the run ends here
    stop();
    return true;
  }
  if (*handler == pc) return false;  // blocked, or ignored: the block runs
  redirect(*handler);
  return true;
}

}  // namespace ttd::rec
