// A fork's child in the recorder (docs/recording.md, "Processes"): the
// host fork copied the emulator, the guest's memory and the trace writer's
// buffers; only this thread exists in the child, and the writer's thread,
// mutexes and file belong to the parent. So the child never touches the
// emitter or the writer again: its recording hooks are deleted, its
// syscalls are answered by the kernel without a trace, and it ends with
// _exit (no destructors, no flush) or by its own fatal signal, so the
// parent's wait4 sees what Linux would show.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <utility>

#include "tools/recorder/host_signal_forwarding.h"
#include "tools/recorder/recording_session.h"

namespace ttd::rec {

void RecordingSession::become_child(const NewProcessChild& c, uint64_t next_pc) {
  child_ = true;
  pending_ = nullptr;
  const int64_t zero = 0;
  uc_reg_write(uc_, guest_.syscall_abi().ret, &zero);
  for (auto [reg, value] : guest_.syscall_clobbers(uc_, next_pc)) uc_reg_write(uc_, reg, &value);
  contexts_.set_stack_and_tls(c.stack, c.tls);
  // Hooks cannot be deleted from inside one: stop, and run() deletes them.
  request_switch(next_pc);
}

bool RecordingSession::wait_in_child() {
  GuestThreads& threads = kernel_.threads();
  for (;;) {
    if (threads.pick_runnable()) return true;
    // In real time: nothing is recorded here, and other processes see how
    // long the child takes (a watchdog child that sleeps, then signals).
    // A timer or sleep end due first fires; then a timed wait ends.
    std::optional<uint64_t> within;
    if (const auto first = threads.first_timeout()) within = *first > clock_steps() ? *first - clock_steps() : 0;
    if (kernel_.wait_in_real_time(clock_steps(), within)) continue;
    if (threads.pick_runnable() || threads.pick_next()) return true;
    if (!kernel_.wait_for_outside_signal(clock_steps())) return false;
  }
}

uint64_t RecordingSession::child_slice_us() {
  if (!child_ || !recording_hooks_.empty() || kernel_.threads().live() <= 1) return 0;
  slice_start_ = LinuxKernel::steady_ns();
  return kChildSliceUs;
}

bool RecordingSession::child_slice_ended() {
  size_t timed_out = 0;
  if (uc_query(uc_, UC_QUERY_TIMEOUT, &timed_out) != UC_ERR_OK || !timed_out) return false;
  // Unicorn stopped between two blocks: the thread resumes at the pc.
  uc_reg_read(uc_, arch_.pc().unicorn_id, &switch_pc_);
  kernel_.child_turn_ran(slice_start_);  // a sleeper's end may have come meanwhile
  return true;
}

std::optional<uint64_t> RecordingSession::child_switch_threads() {
  // No quantum (no code hook): threads take turns at blocking calls
  // (futex waits, pipe and socket I/O, polls), exits, and when a turn
  // has lasted kChildSliceUs of wall time, as a preemptive scheduler
  // without a clock of steps.
  GuestThreads& threads = kernel_.threads();
  const uint32_t cur = threads.current().number;
  const bool gone = threads.current().state == GuestThread::State::Exited;
  kernel_.wake_shared_futex_waiters();
  kernel_.poll_outside_io(clock_steps());  // sockets and outside descriptors that became ready
  // Pipes, sockets and shared futex words other processes make ready.
  while (!threads.pick_runnable()) {
    std::optional<uint64_t> within;
    if (const auto first = threads.first_timeout()) within = *first > clock_steps() ? *first - clock_steps() : 0;
    if (!kernel_.wait_for_host_io(clock_steps(), within)) break;
  }
  if (!threads.pick_runnable() && !wait_in_child()) {
    res_.deadlock = threads.describe_blocked();
    end_child();
  }
  auto next = threads.pick_runnable();
  if (!next) next = threads.pick_next();  // a timed wait that ends
  if (!next) {
    res_.deadlock = threads.describe_blocked();
    end_child();
  }
  if (*next == cur && !gone) return switch_pc_;
  Result<uint64_t> pc = swap_threads(cur, gone, *next);
  if (!pc) res_.fault = pc.error().message, end_child();
  return *pc;
}

void RecordingSession::drop_recording_hooks() {
  for (uc_hook h : recording_hooks_) uc_hook_del(uc_, h);
  recording_hooks_.clear();
  slice_left_ = 0;
  mem_.shared().stop_observing();
  if (guest_.id() == ArchId::X86_64 && !child_fp_hook_) {
    // The blocks translated so far call the code hooks already (the
    // recording's own was one): no flush, which would cost the child
    // seconds of copy-on-write faults.
    uc_cb_hookcode_t cb = on_child_code;
    uc_hook_add(uc_, &child_fp_hook_, UC_HOOK_CODE, (void*)cb, this, 1, 0);
  }
  // Memory shared with other processes: the CrossProcessLock an
  // instruction takes there is given back when the next one starts.
  if (wants_release_hook()) {
    auto release = [](uc_engine*, uint64_t, uint32_t, void* shared) {
      static_cast<HostSharedMemory*>(shared)->release();
    };
    uc_cb_hookcode_t cb = release;
    if (uc_hook_add(uc_, &release_hook_, UC_HOOK_CODE, (void*)cb, &mem_.shared(), 1, 0) == UC_ERR_OK) {
      has_release_hook_ = true;
      // Blocks translated while no code hook existed would not call it.
      // With the floating-point hook there always was one (x86-64); the
      // flush cost a child seconds of copy-on-write faults.
      if (!child_fp_hook_) uc_ctl_flush_tlb(uc_);
    }
  }
}

void RecordingSession::on_child_code(uc_engine* uc, uint64_t addr, uint32_t size, void* p) {
  auto* s = static_cast<RecordingSession*>(p);
  if (s->stopped_) return;
  if (s->child_fp_ && !s->finish_child_fp()) return;
  InsnInfo& info = s->tracker_.lookup(addr);
  if (info.own() != OwnRun::No) [[unlikely]] {
    s->pending_pc_ = addr;
    s->pending_size_ = size;
    if (!s->own_instruction(info.own())) return;
  }
  const HostFpOp& op = info.host_fp;
  if (op.op == HostFpOpcode::None) return;
  // No memory hooks here: the operand's address from the decode.
  uint64_t at = 0;
  if (has_memory_operand(op)) {
    const MemoryOperand& m = s->tracker_.memory_operand(addr);
    if (!m.valid) return;
    at = effective_address(uc, m, addr + size);
  }
  s->pending_pc_ = addr;
  s->pending_size_ = size;
  if (const uint16_t unmasked = s->fp_eval_.before(uc, op)) return void(s->x87_exception(unmasked));
  if (has_memory_operand(op)) s->fp_eval_.on_access(uc, op, at);
  s->child_fp_ = &info;
}

bool RecordingSession::finish_child_fp() {
  InsnInfo* info = std::exchange(child_fp_, nullptr);
  // An x87 store's bytes are in memory already; there is no trace here.
  const uint32_t unmasked = fp_eval_.after(uc_, info->host_fp).unmasked;
  if (!unmasked) return true;
  pending_ = info;  // simd_exception undoes and signals the pending instruction
  return simd_exception(unmasked);
}

void RecordingSession::child_syscall() {
  // Without the code hook the pc tells where we are: x86-64's syscall
  // hook runs with rip at the 2-byte `syscall` (Unicorn adds its length
  // after the hook); AArch64's svc interrupt comes with the pc after it.
  uint64_t pc = 0;
  uc_reg_read(uc_, arch_.pc().unicorn_id, &pc);
  const uint64_t next_pc = guest_.syscall_via_insn_hook() ? pc + 2 : pc;
  const SyscallAbi& abi = guest_.syscall_abi();
  uint64_t number = 0, args[6] = {};
  uc_reg_read(uc_, abi.number, &number);
  for (int i = 0; i < 6; ++i) uc_reg_read(uc_, abi.args[i], &args[i]);
  // Pipe and socket calls block on the host; a call that parks (pause,
  // sigsuspend, sleeps, timed waits) waits here for its timer, timeout or
  // a signal from outside, then runs. (Until 2026-11-29 nothing parked
  // here: pause returned -EINTR at once and a sleep did not sleep, so a
  // child's alarm() never killed it.) With threads of its own, a futex
  // wait parks and another thread runs (child_switch_threads); the call
  // runs again when its thread is back.
  if (kernel_.blocks(number, args, clock_steps())) {
    if (kernel_.threads().live() > 1) return request_switch(guest_.syscall_via_insn_hook() ? pc : pc - 4);
    if (!wait_in_child()) {
      res_.deadlock = kernel_.threads().describe_blocked();
      end_child();
    }
  }
  SyscallOutcome out = kernel_.call(number, args, clock_steps());
  if (out.thread_exited && !out.exited && kernel_.threads().live() > 0) return request_switch(next_pc);
  if (out.exited || out.thread_exited) {
    res_.exit_code = out.exit_code;
    res_.signal = out.signal;
    end_child();
  }
  if (out.new_thread) {
    if (Status st = contexts_.create(out.new_thread->number, next_pc, out.new_thread->stack, out.new_thread->tls);
        !st) {
      res_.fault = st.error().message;
      end_child();
    }
  }
  std::optional<uint64_t> cont = out.resume_at;  // rt_sigreturn: the frame's registers
  if (!cont) {
    uc_reg_write(uc_, abi.ret, &out.ret);
    for (auto [reg, value] : guest_.syscall_clobbers(uc_, next_pc)) uc_reg_write(uc_, reg, &value);
  }
  if (out.child) contexts_.set_stack_and_tls(out.child->stack, out.child->tls);  // a grandchild
  if (out.deliver_signal) {
    if (auto handler = kernel_.deliver_signals(cont.value_or(next_pc))) cont = handler;
    else if (kernel_.frame_failed()) res_.signal = 11, end_child();
  }
  if (cont) redirect(*cont);
  // Shared memory mapped just now (shm_open, sem_open): the release hook
  // goes in between two runs of the emulator.
  if (wants_release_hook()) request_switch(cont.value_or(next_pc));
  // A second thread: from now on each turn is limited (child_slice_us),
  // which takes a new start of the emulator.
  else if (out.new_thread) request_switch(cont.value_or(next_pc));
}

void RecordingSession::end_child() {
  kernel_.return_vfork_memory(true);  // a fault or a signal (an exit syscall did it already: nothing then)
  if (res_.deadlock || (res_.fault && !res_.signal)) {
    const std::string why = res_.deadlock ? "deadlock: " + *res_.deadlock : *res_.fault;
    std::fprintf(stderr, "ttd record: unrecorded child process %d stopped: %s\n", int(::getpid()), why.c_str());
    ::_exit(127);
  }
  if (res_.signal) {
    die_of_signal(res_.signal);
  }
  ::_exit(res_.exit_code & 0xff);
}

}  // namespace ttd::rec
