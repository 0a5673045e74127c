// Signal delivery in the recording loop where it is not a syscall's end
// (docs/recording.md, "Signals"): CPU faults and traps (SIGSEGV, SIGBUS,
// SIGILL, SIGFPE, SIGTRAP) when the guest handles them, and signals
// pending for a thread when it is scheduled. The frame's writes and the
// handler's registers go into the trace before the handler's first step,
// which they are effects of (the faulting instruction itself has no step:
// it did not complete).
#include "tools/recorder/recording_session.h"
#include "tools/recorder/sse_alignment.h"

namespace ttd::rec {

namespace {

constexpr int32_t kSegvMaperr = 1, kSegvAccerr = 2, kIllIllopc = 1, kIllIllopn = 2, kFpeIntdiv = 1,
                  kBusAdraln = 1, kTrapBrkpt = 1;

// x86 #XM's si_code, by Linux's priority (fpu__exception_code): invalid,
// divide by zero, overflow, underflow or denormal, inexact.
constexpr int32_t kFpeFltdiv = 3, kFpeFltovf = 4, kFpeFltund = 5, kFpeFltres = 6, kFpeFltinv = 7;
constexpr uint64_t kTrapX87 = 16, kTrapSimd = 19;

int32_t simd_fpe_code(uint32_t unmasked) {
  if (unmasked & 0x01) return kFpeFltinv;
  if (unmasked & 0x04) return kFpeFltdiv;
  if (unmasked & 0x08) return kFpeFltovf;
  if (unmasked & 0x12) return kFpeFltund;
  return kFpeFltres;
}

// A CPU exception Unicorn reports as an interrupt: the signal, and whether
// the instruction completed first (a trap) or not (a fault).
struct CpuTrap {
  SigInfo info;
  FaultTrap trap;
  bool completed = false;
};

std::optional<CpuTrap> cpu_trap(uint32_t intno, bool x86, uint64_t pc) {
  CpuTrap t;
  t.info.fault = true;
  if (x86) {
    t.trap.trapno = intno;
    switch (intno) {
      case 0: t.info.signo = kSigFpe, t.info.code = kFpeIntdiv, t.info.addr = pc; break;
      case 1:  // icebp (int1): a trap after it, TRAP_BRKPT
        t.info.signo = kSigTrap, t.info.code = kTrapBrkpt;
        t.completed = true;
        break;
      case 3:  // int3: reported after the instruction, si_code SI_KERNEL
        t.info.signo = kSigTrap, t.info.code = SigInfo::kKernel;
        t.completed = true;
        break;
      case 6: t.info.signo = kSigIll, t.info.code = kIllIllopn, t.info.addr = pc; break;
      case 13: t.info.signo = kSigSegv, t.info.code = SigInfo::kKernel; break;  // #GP: privileged instruction
      default: return std::nullopt;
    }
    return t;
  }
  switch (intno) {
    case 1: t.info.signo = kSigIll, t.info.code = kIllIllopc, t.info.addr = pc; break;  // EXCP_UDEF
    case 7: t.info.signo = kSigTrap, t.info.code = kTrapBrkpt, t.info.addr = pc; break;  // EXCP_BKPT: brk
    default: return std::nullopt;
  }
  return t;
}

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
      if (x86 && pending_ && is_icebp(pc)) return icebp();
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

int RecordingSession::trap_signal(uint32_t intno) const {
  const bool x86 = guest_.id() == ArchId::X86_64;
  if (auto t = cpu_trap(intno, x86, pending_pc_)) return t->info.signo;
  // Any other `int n` raises #GP on Linux (its IDT gates are not for user
  // mode): SIGSEGV. AArch64's others: SIGTRAP, as before.
  return x86 ? kSigSegv : kSigTrap;
}

bool RecordingSession::trap_handler(uint32_t intno) {
  const bool x86 = guest_.id() == ArchId::X86_64;
  auto t = cpu_trap(intno, x86, pending_pc_);
  if (!t || !pending_ || !kernel_.fault_handled(t->info.signo)) return false;
  uint64_t resume = pending_pc_;
  if (t->completed) {
    resume = pending_pc_ + pending_size_;
    finish_instruction();
  } else {
    emit_.drop_accesses();
  }
  auto handler = kernel_.deliver_fault(t->info, resume, t->trap);
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

bool RecordingSession::is_icebp(uint64_t pc) {
  uint8_t byte = 0;
  return uc_mem_read(uc_, pc, &byte, 1) == UC_ERR_OK && byte == 0xf1;
}

std::optional<uint64_t> RecordingSession::icebp() {
  // Unicorn 2.0.1 calls icebp (F1) an invalid instruction; Linux raises
  // SIGTRAP after it (#DB, a trap on hardware; some hypervisors report it
  // at the instruction instead). Its code hook gave no size.
  constexpr uint32_t kDebug = 1;
  pending_size_ = 1;
  return trap_outside_hook(kDebug);
}

bool RecordingSession::simd_exception(uint32_t unmasked) {
  // Only MXCSR's flags change on #XM (sse_host_eval.h set them): the
  // rest of what the instruction did in the emulator is undone.
  uint32_t mxcsr = 0;
  uc_reg_read(uc_, UC_X86_REG_MXCSR, &mxcsr);
  // An unrecorded child keeps no shadow of the registers: there only an
  // xmm destination goes back (sse_host_eval.h).
  if (child_) fp_eval_.undo(uc_, pending_->host_fp);
  else tracker_.rewind(*pending_);
  uc_reg_write(uc_, UC_X86_REG_MXCSR, &mxcsr);
  emit_.drop_accesses();
  return fp_exception(unmasked, kTrapSimd, "SIMD");
}

void RecordingSession::x87_exception(uint16_t unmasked) {
  // Nothing ran: the handler sees the x87 state as it is, the flags set
  // (Linux's signal frame; the handler itself starts with a fresh one), and
  // sigreturn without clearing them signals again. ES and B say an
  // exception is pending, as the CPU sets them also when fldcw unmasks a
  // flag already set (Unicorn does not).
  uint64_t fsw = 0;
  uc_reg_read(uc_, UC_X86_REG_FPSW, &fsw);
  fsw |= kX87PendingBits;
  uc_reg_write(uc_, UC_X86_REG_FPSW, &fsw);
  (void)fp_exception(unmasked, kTrapX87, "x87");
}

bool RecordingSession::fp_exception(uint32_t unmasked, uint64_t trapno, const char* unit) {
  // Linux's fpu__exception_code: the same order for x87 and SSE flags.
  SigInfo info{kSigFpe, simd_fpe_code(unmasked)};
  info.fault = true;
  info.addr = pending_pc_;
  const char* what = info.code == kFpeFltinv   ? "invalid operation"
                     : info.code == kFpeFltdiv ? "divide by zero"
                     : info.code == kFpeFltovf ? "overflow"
                     : info.code == kFpeFltund ? "underflow"
                                               : "inexact result";
  fault_in_hook(info, FaultTrap{trapno, 0, 0},
                std::string(unit) + " floating-point exception (" + what + ") at pc " + hex_address(info.addr));
  return false;
}

void RecordingSession::fault_in_hook(SigInfo info, FaultTrap trap, const std::string& fatal) {
  if (kernel_.fault_handled(info.signo)) {
    auto handler = kernel_.deliver_fault(info, pending_pc_, trap);
    pending_ = nullptr;
    if (handler) {
      emit_delivery();
      redirect(*handler);
      return;
    }
    info.signo = kSigSegv;  // the stack could not take the frame
  }
  emit_delivery();  // what the instruction's unit shows (MXCSR's flags), as a core dump would
  res_.fault = fatal;
  res_.exited = true;
  res_.signal = info.signo;
  res_.exit_code = 128 + info.signo;
  pending_ = nullptr;
  stop();
}

void RecordingSession::misaligned_operand(uint64_t at) {
  // #GP: Linux's SIGSEGV with SI_KERNEL and no address.
  SigInfo segv{kSigSegv, SigInfo::kKernel};
  segv.fault = true;
  constexpr uint64_t kGeneralProtection = 13;
  fault_in_hook(segv, FaultTrap{kGeneralProtection, 0, 0},
                "general protection fault at pc " + hex_address(pending_pc_) + ": its 16-byte memory operand at " +
                    hex_address(at) + " is not 16-byte aligned");
}

bool RecordingSession::own_instruction(OwnRun own) {
  const uint64_t pc = pending_pc_;
  if (own == OwnRun::CheckAlignment) {
    const MemoryOperand& m = tracker_.memory_operand(pc);
    if (!m.valid) return true;  // an addressing form not decoded: left to Unicorn
    const uint64_t at = effective_address(uc_, m, pc + pending_size_);
    if (at % kSseAlignment == 0) return true;
    misaligned_operand(at);
    return false;
  }
  SigInfo ill{kSigIll, kIllIllopn};
  ill.fault = true;
  ill.addr = pc;
  constexpr uint64_t kInvalidOpcode = 6;
  if (own == OwnRun::NoAvx) {
    fault_in_hook(ill, FaultTrap{kInvalidOpcode, 0, 0},
                  "AVX-family instruction at pc " + hex_address(pc) +
                      ": the recorded CPU has no AVX (its CPUID does not report it, and Unicorn 2.0.1 "
                      "computes such instructions wrong), so it raises SIGILL as such a CPU does");
    return false;
  }
  auto done = missing_.run(uc_, mem_, pc);
  if (!done) {
    fault_in_hook(ill, FaultTrap{kInvalidOpcode, 0, 0}, "invalid instruction at pc " + hex_address(pc));
    return false;
  }
  if (done->misaligned_at) {
    misaligned_operand(*done->misaligned_at);
    return false;
  }
  if (done->fault) {
    const bool write = done->access->write;
    const bool mapped = *done->fault == UC_ERR_READ_PROT || *done->fault == UC_ERR_WRITE_PROT;
    SigInfo segv{kSigSegv, mapped ? kSegvAccerr : kSegvMaperr};
    segv.fault = true;
    segv.addr = done->access->addr;
    constexpr uint64_t kPageFault = 14;
    fault_in_hook(segv, FaultTrap{kPageFault, 4u | (write ? 2u : 0u) | (mapped ? 1u : 0u), segv.addr},
                  std::string(uc_strerror(*done->fault)) + " at pc " + hex_address(pc) + " (address " +
                      hex_address(segv.addr) + ")");
    return false;
  }
  if (!child_) {  // a fork's child writes no trace
    if (const auto& a = done->access) {
      if (a->write) emit_.mem_write(a->addr, a->size, int64_t(a->value));
      else emit_.mem_read(a->addr, a->size);
    }
    pending_size_ = done->size;
    finish_instruction();
  }
  redirect(pc + done->size);
  return false;
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
