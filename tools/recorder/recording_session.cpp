#include "tools/recorder/recording_session.h"

#include <cstdio>

#include "tools/recorder/host_signal_forwarding.h"

namespace ttd::rec {

std::string hex_address(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

namespace {

const char* access_kind(uc_mem_type t) {
  switch (t) {
    case UC_MEM_READ_UNMAPPED: return "read of unmapped";
    case UC_MEM_WRITE_UNMAPPED: return "write to unmapped";
    case UC_MEM_FETCH_UNMAPPED: return "execution of unmapped";
    case UC_MEM_READ_PROT: return "read of protected";
    case UC_MEM_WRITE_PROT: return "write to read-only";
    case UC_MEM_FETCH_PROT: return "execution of non-executable";
    default: return "access to";
  }
}

}  // namespace

RecordingSession::RecordingSession(uc_engine* uc, const ArchDesc& arch, const GuestArch& guest, GuestMemory& mem,
                                   LinuxKernel& kernel, RegisterTracker& tracker, TraceEmitter& emitter,
                                   const RecordOptions& opts, TraceMirror* mirror,
                                   std::vector<std::string>& verify_errors)
    : uc_(uc), arch_(arch), guest_(guest), mem_(mem), kernel_(kernel), tracker_(tracker), emit_(emitter),
      opts_(opts), mirror_(mirror), verify_errors_(verify_errors), view_(uc, arch, tracker, mem),
      contexts_(uc, guest, tracker), quantum_(opts.quantum ? opts.quantum : 1) {
  // Another process's store to shared memory, seen by a load of this
  // step: a write of the step, so replay reads what the program read.
  mem_.shared().observe([this](uint64_t addr, uint32_t size, uint64_t value) {
    if (pending_ && !child_) emit_.mem_write(addr, size, int64_t(value));
  });
}

RecordingSession::~RecordingSession() {
  // The hooks stay installed (uc_close frees them): uc_hook_del makes
  // Unicorn 2.0.1 invalidate every translated block the hook was compiled
  // into, page by page, which cost up to a tenth of a short recording.
  // The emulator is not run again after the session (see the header).
}

Status RecordingSession::install_hooks() {
  auto add = [&](int type, void* cb, uint64_t begin, uint64_t end, int extra = -1) -> Status {
    uc_hook h;
    uc_err err = extra >= 0 ? uc_hook_add(uc_, &h, type, cb, this, begin, end, extra)
                            : uc_hook_add(uc_, &h, type, cb, this, begin, end);
    if (err != UC_ERR_OK) return make_error("emulator", std::string("cannot install a hook: ") + uc_strerror(err));
    hooks_.push_back(h);
    if (type & (UC_HOOK_BLOCK | UC_HOOK_CODE | UC_HOOK_MEM_READ)) recording_hooks_.push_back(h);
    return {};
  };
  // begin > end means "everywhere".
  if (auto st = add(UC_HOOK_BLOCK, (void*)&on_block, 1, 0); !st) return st;
  if (auto st = add(UC_HOOK_CODE, (void*)&on_code, 1, 0); !st) return st;
  if (auto st = add(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, (void*)&on_mem, 1, 0); !st) return st;
  if (auto st = add(UC_HOOK_MEM_INVALID, (void*)&on_bad_mem, 1, 0); !st) return st;
  if (auto st = add(UC_HOOK_INTR, (void*)&on_interrupt, 1, 0); !st) return st;
  if (guest_.syscall_via_insn_hook())
    if (auto st = add(UC_HOOK_INSN, (void*)&on_syscall_insn, 1, 0, UC_X86_INS_SYSCALL); !st) return st;
  return {};
}

SessionResult RecordingSession::run(uint64_t entry) {
  uint64_t pc = entry;
  for (;;) {
    stopped_ = switch_requested_ = false;
    const uint64_t slice_us = child_slice_us();
    uc_err err = uc_emu_start(uc_, pc, ~0ull, slice_us, 0);
    mem_.shared().release();  // an instruction's accesses to shared memory are over
    if (child_fp_) {  // an unrecorded child's last floating-point instruction
      if (err != UC_ERR_OK && !stopped_) child_fp_ = nullptr;  // it faulted: no result
      else if (!finish_child_fp() && res_.exited) break;
    }
    if (err != UC_ERR_OK && !stopped_) {
      if (auto handler = fault_handler(err)) {
        pc = *handler;
        continue;
      }
      if (!res_.exited) fault(err);  // else the fault's signal ended the run already
      break;
    }
    if (redirect_pc_ && !switch_requested_) {  // a signal handler, or back from one
      pc = *redirect_pc_;
      redirect_pc_.reset();
      continue;
    }
    redirect_pc_.reset();
    if (!switch_requested_ && slice_us && child_slice_ended()) {
      if (auto next = child_switch_threads()) {
        pc = *next;
        continue;
      }
      break;
    }
    if (!switch_requested_) {
      if (!stopped_ && pending_) {  // Unicorn halted by itself: hlt, wfi, wfe
        if (auto next = halted()) {
          pc = *next;
          continue;
        }
        break;
      }
      if (pending_) finish_instruction();
      break;
    }
    if (child_ && (!recording_hooks_.empty() || wants_release_hook())) {  // the fork's child goes on unrecorded
      drop_recording_hooks();
      pc = switch_pc_;
      continue;
    }
    auto next = child_ ? child_switch_threads() : switch_threads();
    if (!next) break;
    pc = *next;
  }
  if (child_) end_child();
  res_.threads = uint32_t(kernel_.threads().count());
  return res_;
}

std::optional<uint64_t> RecordingSession::switch_threads() {
  GuestThreads& threads = kernel_.threads();
  kernel_.wake_shared_futex_waiters();  // another process's store or wake (host_shared_memory.h)
  const uint32_t cur = threads.current().number;
  const bool gone = threads.current().state == GuestThread::State::Exited;
  // No thread can run and a timer expires before the first timed wait
  // would end: the timer goes first (virtual time), as it would natively.
  // The wait's own end is not jumped to here: a host wait below may
  // still end it first.
  if (threads.current().state != GuestThread::State::Runnable && !threads.other_runnable())
    if (const auto first = threads.first_timeout(); first && *first > 0)
      kernel_.fire_timers(clock_steps(), true, *first - 1);
  kernel_.poll_outside_io(clock_steps());  // sockets a peer elsewhere made ready (linux_kernel_socket_waits.cpp)
  // Another process (a fork's child) may still make a waited-for pipe,
  // pidfd or outside descriptor ready: wait for it on the host, until the
  // next timer is due or the first timed poll would end, rather than time
  // that poll out at once (until 2026-11-29 a poll with a timeout on a
  // child's pipe returned 0 at once) or call it a deadlock. A timed futex
  // wait's end bounds the host wait as a timer does (guest_sleeps.cpp).
  auto next = threads.pick_runnable();
  while (!next) {
    std::optional<uint64_t> within;
    if (const auto first = threads.first_timeout()) within = *first > clock_steps() ? *first - clock_steps() : 0;
    if (!kernel_.wait_for_host_io(clock_steps(), within)) break;
    next = threads.pick_runnable();
  }
  // Only a timer or a timed wait's end can still end the wait: the clock
  // jumps to the earliest (virtual time), which fires.
  if (!next && kernel_.fire_timers(clock_steps(), true)) next = threads.pick_next();
  if (!next) next = threads.pick_next();  // a timed wait whose end is not kept ends
  // A daemon in pause() or sigwait() for its SIGTERM: the recording waits
  // with it, as the process would natively.
  while (!next && kernel_.wait_for_outside_signal(clock_steps())) next = threads.pick_next();
  if (!next) {
    res_.deadlock = "every thread is blocked: " + threads.describe_blocked();
    return std::nullopt;
  }
  slice_left_ = threads.live() > 1 ? quantum_ + 1 : 0;
  if (*next == cur) return deliver_on_schedule(switch_pc_);  // nobody else can run
  Result<uint64_t> pc = swap_threads(cur, gone, *next);
  if (!pc) {
    res_.fault = pc.error().message;
    return std::nullopt;
  }
  emit_.set_thread(*next);
  return deliver_on_schedule(*pc);
}

Result<uint64_t> RecordingSession::swap_threads(uint32_t cur, bool gone, uint32_t next) {
  Status st = gone ? Status() : contexts_.save(cur, switch_pc_);
  if (gone) contexts_.drop(cur);
  Result<uint64_t> pc = st ? contexts_.load(next) : Result<uint64_t>(st.error());
  if (pc) kernel_.threads().make_current(next);
  return pc;
}

void RecordingSession::new_thread(const NewThread& t, uint64_t pc) {
  if (Status st = contexts_.create(t.number, pc, t.stack, t.tls); !st) {
    res_.fault = st.error().message;
    return stop();
  }
  emit_.thread_keyframe(t.number, pc, tracker_, contexts_.shadow_of(t.number));
  if (!slice_left_) slice_left_ = quantum_ + 1;
}

void RecordingSession::fault(uc_err err) {
  // The pending instruction did not complete: nothing of it goes out.
  emit_.drop_accesses();
  uint64_t pc = pending_pc_;
  if (!pending_) uc_reg_read(uc_, arch_.pc().unicorn_id, &pc);
  std::string msg = std::string(uc_strerror(err)) + " at pc " + hex_address(pc);
  if (bad_access_) msg += std::string(" (") + access_kind(bad_access_->first) + " address " + hex_address(bad_access_->second) + ")";
  res_.fault = msg;
  pending_ = nullptr;
  // Linux would kill the process with SIGSEGV (or SIGILL).
  res_.exited = true;
  res_.signal = err == UC_ERR_INSN_INVALID ? 4 : 11;
  res_.exit_code = 128 + res_.signal;
  // No OP_EXIT: readers would make it a step of its own, and the trace's
  // step count must stay the number of instructions that completed.
}

bool RecordingSession::finish_instruction() {
  HostFpEval::Outcome fp;
  if (pending_->host_fp.op != HostFpOpcode::None) {
    fp = fp_eval_.after(uc_, pending_->host_fp);
    if (fp.unmasked) return simd_exception(fp.unmasked);
  }
  if (pending_->tsc) virtual_tsc(pending_->tsc == 2);
  emit_.flush_accesses();
  // After the instruction's own writes, so the CPU's bytes win.
  if (fp.store) emit_.corrected_memory(fp.store->addr, {fp.store->bytes, fp.store->size});
  if (pending_->x87_env_store) {
    uint8_t image[28];
    // After the instruction's own writes, so the corrected bytes win.
    if (auto at = x87_image_.after(uc_, image)) emit_.corrected_memory(*at, image);
  }
  auto emit_reg = [this](uint16_t index, std::span<const uint8_t> v) { emit_.reg(index, v); };
  if (opts_.verify) res_.register_misses += tracker_.diff_all(pending_, emit_reg);
  else tracker_.diff(*pending_, emit_reg);
  emit_.step(pending_size_);
  ++res_.steps;
  pending_ = nullptr;
  return true;
}

void RecordingSession::virtual_tsc(bool with_aux) {
  // Unicorn 2.0.1 cannot hook rdtsc (UC_HOOK_INSN refuses it) and returns
  // the host's counter; the recording counts one tick per step instead,
  // so it does not depend on when it was made: edx:eax = the EID.
  const uint64_t tsc = res_.steps;
  const uint64_t lo = tsc & 0xffffffffu, hi = tsc >> 32, aux = 0;  // rdtscp: TSC_AUX of CPU 0
  uc_reg_write(uc_, UC_X86_REG_RAX, &lo);
  uc_reg_write(uc_, UC_X86_REG_RDX, &hi);
  if (with_aux) uc_reg_write(uc_, UC_X86_REG_RCX, &aux);
}

void RecordingSession::on_block(uc_engine*, uint64_t addr, uint32_t size, void* p) {
  auto* s = static_cast<RecordingSession*>(p);
  s->mem_.shared().release();  // the last instruction's shared accesses are over
  if (s->stopped_) return;
  if (s->pending_ && !s->finish_instruction()) return;
  // An interval timer expired, or a signal came from outside (one load each).
  if ((s->clock_steps() >= s->kernel_.timer_due() || host_signal_pending()) && s->timer_interrupt(addr)) return;
  s->emit_.block(addr, size);
}

void RecordingSession::on_code(uc_engine* uc, uint64_t addr, uint32_t size, void* p) {
  auto* s = static_cast<RecordingSession*>(p);
  s->mem_.shared().release();  // the last instruction's shared accesses are over
  if (s->stopped_) return;
  if (s->pending_ && !s->finish_instruction()) return;
  if (s->opts_.max_steps && s->res_.steps >= s->opts_.max_steps) {
    s->res_.hit_max_steps = true;
    return s->stop();
  }
  if (s->slice_left_ && --s->slice_left_ == 0) {
    // The thread's turn is over; this instruction runs when it is back.
    if (s->kernel_.threads().other_runnable()) return s->request_switch(addr);
    s->slice_left_ = s->quantum_;
  }
  s->pending_ = &s->tracker_.lookup(addr);
  s->pending_pc_ = addr;
  s->pending_size_ = size;
  if (s->pending_->own() != OwnRun::No) [[unlikely]]
    if (!s->own_instruction(s->pending_->own())) return;
  if (s->pending_->host_fp.op != HostFpOpcode::None)
    if (const uint16_t unmasked = s->fp_eval_.before(uc, s->pending_->host_fp)) return void(s->x87_exception(unmasked));
  if (s->mirror_ || s->opts_.on_step) s->view_.at(addr);
  if (s->mirror_)
    s->res_.register_mismatches += s->mirror_->check_registers(s->view_.registers(), s->res_.steps, s->verify_errors_);
  if (s->opts_.on_step) s->opts_.on_step(s->res_.steps, s->view_);
}

void RecordingSession::on_mem(uc_engine*, uc_mem_type type, uint64_t addr, int size, int64_t value, void* p) {
  auto* s = static_cast<RecordingSession*>(p);
  if (s->stopped_ || !s->pending_) return;
  if (type == UC_MEM_WRITE) {
    s->emit_.mem_write(addr, uint32_t(size), value);
    if (s->pending_->x87_env_store) s->x87_image_.on_write(addr);
  } else {
    s->emit_.mem_read(addr, uint32_t(size));
  }
  if (s->pending_->host_fp.op != HostFpOpcode::None) s->fp_eval_.on_access(s->uc_, s->pending_->host_fp, addr);
}

bool RecordingSession::on_bad_mem(uc_engine*, uc_mem_type type, uint64_t addr, int, int64_t, void* p) {
  static_cast<RecordingSession*>(p)->bad_access_ = {type, addr};
  return false;  // not handled: the emulator stops with a fault
}

void RecordingSession::on_syscall_insn(uc_engine*, void* p) {
  auto* s = static_cast<RecordingSession*>(p);
  if (!s->stopped_) s->syscall();
}

void RecordingSession::on_interrupt(uc_engine*, uint32_t intno, void* p) {
  auto* s = static_cast<RecordingSession*>(p);
  if (s->stopped_) return;
  if (s->guest_.is_syscall_interrupt(intno)) return s->syscall();
  if (s->trap_handler(intno)) return;
  s->end_with_trap(intno);
}

void RecordingSession::end_with_trap(uint32_t intno) {
  // Breakpoint, undefined instruction, division by zero ...: no handler,
  // so Linux's default action for the signal ends the process.
  emit_.drop_accesses();
  res_.fault = "CPU exception " + std::to_string(intno) + " at pc " + hex_address(pending_pc_);
  if (guest_.id() == ArchId::X86_64 && intno == 0x80) {
    // Linux built with IA32 emulation runs it as a 32-bit system call; the
    // recorder does not, so say so rather than leave a bare exception.
    uint64_t eax = 0;
    uc_reg_read(uc_, UC_X86_REG_RAX, &eax);
    res_.fault = "int $0x80 at pc " + hex_address(pending_pc_) + " (a 32-bit system call, eax " +
                 std::to_string(uint32_t(eax)) + "): not emulated in a 64-bit program; Linux's IA32 emulation would run it";
  }
  res_.exited = true;
  res_.signal = trap_signal(intno);
  res_.exit_code = 128 + res_.signal;
  pending_ = nullptr;
  stop();
}

std::optional<uint64_t> RecordingSession::halted() {
  if (guest_.id() != ArchId::X86_64) {
    // AArch64's wfi and wfe: Linux lets EL0 run them (SCTLR_EL1.nTWI/nTWE),
    // and they return at the next event; Unicorn stops instead.
    const uint64_t next = pending_pc_ + pending_size_;
    finish_instruction();
    return next;
  }
  // x86's hlt in user mode raises #GP: SIGSEGV, at the instruction.
  constexpr uint32_t kGeneralProtection = 13;
  return trap_outside_hook(kGeneralProtection);
}

std::optional<uint64_t> RecordingSession::trap_outside_hook(uint32_t intno) {
  if (!trap_handler(intno)) {
    end_with_trap(intno);
    return std::nullopt;
  }
  const auto handler = redirect_pc_;  // none: the frame did not fit, the run ended
  redirect_pc_.reset();
  return handler;
}

void RecordingSession::syscall() {
  if (child_) return child_syscall();
  // The trapping instruction itself is done: its step comes first, the
  // kernel's effects after it.
  uint64_t next_pc = pending_pc_ + pending_size_;
  const SyscallAbi& abi = guest_.syscall_abi();
  uint64_t number = 0, args[6] = {};
  uc_reg_read(uc_, abi.number, &number);
  for (int i = 0; i < 6; ++i) uc_reg_read(uc_, abi.args[i], &args[i]);
  if (kernel_.blocks(number, args, clock_steps())) {
    // A futex wait that must wait: the instruction has not happened yet.
    // It runs again (and is recorded then) once the thread is woken.
    emit_.drop_accesses();
    pending_ = nullptr;
    // What parking wrote (a PI lock waiter's FUTEX_WAITERS bit) happened
    // between two steps: the trace gives it to the next step, whichever
    // thread runs it (docs/recording.md, "Threads").
    for (const KernelEffect& e : kernel_.effects())
      if (e.kind == KernelEffect::Kind::MemWrite) emit_.corrected_memory(e.addr, e.bytes);
    return request_switch(pending_pc_);
  }
  if (pending_) finish_instruction();

  SyscallOutcome out = kernel_.call(number, args, clock_steps());
  if (out.child)
    return opts_.follow_fork ? become_recorded_child(*out.child, next_pc) : become_child(*out.child, next_pc);
  if (out.unsupported && opts_.strict) {
    const std::string& what = kernel_.unsupported_detail();
    res_.strict_stop = "syscall " + std::to_string(number) + " (" + std::string(out.name) + ")" +
                       (what.empty() || what == out.name ? "" : ": " + what) + " at step " +
                       std::to_string(res_.steps ? res_.steps - 1 : 0);
    return stop();
  }
  ++res_.syscalls;
  if (auto target = kernel_.take_exec()) return end_for_exec(number, args, std::move(*target));
  // Where the thread goes on: after the syscall, where rt_sigreturn says,
  // or in a signal handler whose frame the call's effects then include.
  std::optional<uint64_t> cont;
  if (!out.exited && !out.thread_exited) {
    if (out.resume_at) {
      cont = out.resume_at;  // the registers are the frame's: no result, no clobbers
    } else {
      uc_reg_write(uc_, abi.ret, &out.ret);
      for (auto [reg, value] : guest_.syscall_clobbers(uc_, next_pc)) uc_reg_write(uc_, reg, &value);
    }
    if (out.deliver_signal) {
      if (auto handler = kernel_.deliver_signals(cont.value_or(next_pc))) cont = handler;
      else if (kernel_.frame_failed()) out.exited = true, out.signal = 11, out.exit_code = 128 + 11;
    }
  }
  if (out.exited) {
    // The process ends inside this syscall: OP_EXIT is one of its effects,
    // as usercorn writes it.
    emit_.begin_syscall(uint32_t(number), 0, args);
    emit_.kernel_effects(kernel_.effects());
    emit_.exit();
    emit_.end_syscall();
    res_.exited = true;
    res_.exit_code = out.exit_code;
    res_.signal = out.signal;
    return stop();
  }
  if (out.thread_exited) {
    // Only this thread ends (its OP_EXIT); the others go on.
    emit_.begin_syscall(uint32_t(number), 0, args);
    emit_.kernel_effects(kernel_.effects());
    emit_.exit();
    emit_.end_syscall();
    return request_switch(next_pc);
  }
  emit_.begin_syscall(uint32_t(number), uint64_t(out.ret), args);
  emit_.kernel_effects(kernel_.effects());
  // Whatever registers the kernel changed (result, clobbers, FS base).
  tracker_.diff_all(nullptr, [this](uint16_t index, std::span<const uint8_t> v) { emit_.reg(index, v); });
  emit_.end_syscall();
  if (kernel_.code_may_have_changed()) {
    // Only the ranges the call unmapped, replaced or re-protected.
    for (const KernelEffect& e : kernel_.effects())
      if (e.kind != KernelEffect::Kind::MemWrite) tracker_.invalidate(e.addr, e.addr + e.size);
  }
  if (out.new_thread) new_thread(*out.new_thread, next_pc);
  if (cont) return redirect(*cont);
  if (out.yield && kernel_.threads().other_runnable() && !stopped_) request_switch(next_pc);
}

}  // namespace ttd::rec
