// The recording loop: Unicorn hooks that turn each executed block,
// instruction, memory access and syscall into trace records, in order.
//
// Order of events for one instruction, as Unicorn delivers them: (block
// hook if it starts a block), code hook, memory hooks while it runs,
// syscall/interrupt hook if it traps. The instruction is finished
// (accesses, register changes, step) when the next block or code hook
// arrives, or at its syscall, because only then has it fully executed.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <unicorn/unicorn.h>

#include "tools/recorder/emulator_view.h"
#include "tools/recorder/guest_arch.h"
#include "tools/recorder/linux_kernel.h"
#include "tools/recorder/missing_instructions.h"
#include "tools/recorder/recorder.h"
#include "tools/recorder/register_tracker.h"
#include "tools/recorder/host_fp_eval.h"
#include "tools/recorder/thread_contexts.h"
#include "tools/recorder/trace_emitter.h"
#include "tools/recorder/trace_mirror.h"

namespace ttd::rec {

// "0x1f": addresses in the run's fault messages.
std::string hex_address(uint64_t v);

struct SessionResult {
  uint64_t steps = 0, syscalls = 0;
  bool exited = false;
  int exit_code = 0, signal = 0;
  bool hit_max_steps = false;
  std::optional<std::string> fault;
  std::optional<std::string> strict_stop;  // RecordOptions::strict: the unsupported call that ended the run
  std::optional<std::string> deadlock;     // every thread blocked: which on what
  uint32_t threads = 1;                    // threads the guest ran
  uint64_t register_mismatches = 0;  // verify only
  uint64_t register_misses = 0;      // verify only: changes the fast path would have missed
  // recording_session_exec.cpp: the run ended at a successful execve (the
  // trace ends there; the chain loads this next) ...
  std::optional<ExecTarget> exec;
  // ... or, with RecordOptions::follow_fork, this process is now a fork's
  // child, to be recorded from this pc into a trace of its own.
  std::optional<uint64_t> forked_child_pc;
};

class RecordingSession {
 public:
  RecordingSession(uc_engine* uc, const ArchDesc& arch, const GuestArch& guest, GuestMemory& mem,
                   LinuxKernel& kernel, RegisterTracker& tracker, TraceEmitter& emitter,
                   const RecordOptions& opts, TraceMirror* mirror, std::vector<std::string>& verify_errors);
  // Leaves its hooks in the emulator, pointing at this object: the
  // emulator must not run again once the session is gone (record() only
  // closes it).
  ~RecordingSession();

  Status install_hooks();
  // Runs the guest from `entry` until it exits, faults, deadlocks or hits
  // max_steps. Threads take turns in the one emulator (docs/recording.md,
  // "Threads"): a thread runs until it has run RecordOptions::quantum
  // instructions, blocks in a futex wait, yields or exits.
  SessionResult run(uint64_t entry);
  // The child of a followed fork goes on in a new trace (the emitter now
  // writes there): steps count from 0 again, the clocks go on.
  void restart_counting() {
    clock_base_ += res_.steps;
    res_ = SessionResult{};
  }
  // Steps since the recording chain started: what the guest's clocks read.
  uint64_t clock_steps() const { return clock_base_ + res_.steps; }
  void set_clock_base(uint64_t steps) { clock_base_ = steps; }

 private:
  static void on_block(uc_engine* uc, uint64_t addr, uint32_t size, void* self);
  static void on_code(uc_engine* uc, uint64_t addr, uint32_t size, void* self);
  static void on_mem(uc_engine* uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void* self);
  static bool on_bad_mem(uc_engine* uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void* self);
  static void on_syscall_insn(uc_engine* uc, void* self);
  static void on_interrupt(uc_engine* uc, uint32_t intno, void* self);

  // recording_session_signals.cpp: signal delivery at the points that are
  // not a syscall's end (which syscall() handles with the call's effects).
  // A CPU fault or trap with a guest handler: the handler's pc, its frame
  // in the trace; nullopt: the default action (the run ends as before).
  std::optional<uint64_t> fault_handler(uc_err err);
  bool trap_handler(uint32_t intno);
  // The signal CPU exception `intno` raises (SIGFPE for a division by zero ...).
  int trap_signal(uint32_t intno) const;
  // No handler for CPU exception `intno`: the run ends with its signal.
  void end_with_trap(uint32_t intno);
  // Unicorn stopped by itself after the pending instruction (hlt, wfi,
  // wfe): what Linux does instead. Where to go on, or nullopt if the run
  // ended.
  std::optional<uint64_t> halted();
  // CPU exception `intno` at the pending instruction, raised from run()
  // rather than from a hook: the handler's pc, or nullopt if the run ended.
  std::optional<uint64_t> trap_outside_hook(uint32_t intno);
  // icebp (int1), which Unicorn reports as invalid: SIGTRAP after it.
  bool is_icebp(uint64_t pc);
  std::optional<uint64_t> icebp();
  // The pending SSE instruction raised exceptions its MXCSR unmasks
  // (`unmasked`: MXCSR bits 0-5): it is undone but for MXCSR's flags, and
  // SIGFPE goes to the guest's handler at it, or ends the run. Returns
  // false (the instruction did not complete; the emulator is stopped).
  bool simd_exception(uint32_t unmasked);
  // The x87 instruction at pending_pc_, which waits, finds exceptions its
  // control word unmasks pending (`unmasked`: FSW bits 0-5): #MF, before it
  // runs, so SIGFPE goes to the handler at it, or ends the run.
  void x87_exception(uint16_t unmasked);
  // SIGFPE for a floating-point exception at pending_pc_ (trap number
  // `trapno`), to the guest's handler or ending the run; `unit` names it.
  bool fp_exception(uint32_t unmasked, uint64_t trapno, const char* unit);
  // A fault at pending_pc_ raised from a code hook (the instruction did not
  // run): `info` to the guest's handler, or the run ends saying `fatal`.
  void fault_in_hook(SigInfo info, FaultTrap trap, const std::string& fatal);
  // The instruction at pending_pc_ is one the recorder handles itself
  // (InsnInfo::own, missing_instructions.h): run it, SIGILL for AVX, or
  // SIGSEGV for a misaligned SSE operand (sse_alignment.h). True: Unicorn
  // runs it as it is (an operand that is aligned).
  bool own_instruction(OwnRun own);
  // #GP for the instruction at pending_pc_, whose 16-byte operand at `at`
  // is not aligned: SIGSEGV (SI_KERNEL, no address) or the run's end.
  void misaligned_operand(uint64_t at);
  // A thread was just scheduled at `pc`: its pending signals are delivered
  // (nullopt: a fatal one ended the run).
  std::optional<uint64_t> deliver_on_schedule(uint64_t pc);
  // An interval timer expired before the block at `pc`, or a signal came
  // from outside (host_signal_forwarding.h): it is delivered there. True
  // if the block must not run now.
  bool timer_interrupt(uint64_t pc);
  // The kernel's frame writes and the changed registers, into the trace
  // before the handler's first step.
  void emit_delivery();
  // Stops the emulator so that run() starts it again at `pc` (a handler,
  // or the pc rt_sigreturn restored).
  void redirect(uint64_t pc) {
    redirect_pc_ = pc;
    stop();
  }

  // The pending instruction's effects into the trace, as a step; false if
  // it raised an unmasked SIMD exception instead (simd_exception).
  bool finish_instruction();
  void virtual_tsc(bool with_aux);
  void syscall();
  void fault(uc_err err);
  // Stops the emulator so run() can give the CPU to another thread; the
  // current one continues at resume_pc when its turn comes.
  void request_switch(uint64_t resume_pc) {
    switch_requested_ = true;
    switch_pc_ = resume_pc;
    stop();
  }
  // Saves the current thread, loads the next one; the pc to start at, or
  // nullopt when the run ends (deadlock or an emulator error, in res_).
  std::optional<uint64_t> switch_threads();
  void new_thread(const NewThread& t, uint64_t pc);
  void stop() {
    stopped_ = true;
    uc_emu_stop(uc_);
  }
  // recording_session_child.cpp: this process became a fork's child (a
  // host fork of the recorder). It must not write the parent's trace: the
  // recording hooks go (outside the emulator, in run()), syscalls are
  // answered without a trace, and the child ends with _exit or its signal.
  void become_child(const NewProcessChild& c, uint64_t next_pc);
  void drop_recording_hooks();
  // recording_session_exec.cpp: a successful execve ends the trace (the
  // call with OP_EXIT as its effect); a --follow-fork child stops here to
  // be recorded into its own trace.
  void end_for_exec(uint64_t number, const uint64_t args[6], ExecTarget target);
  void become_recorded_child(const NewProcessChild& c, uint64_t next_pc);
  void child_syscall();
  // Saves thread `cur` at switch_pc_ (drops it if `gone`), loads `next`
  // and makes it current: its pc.
  Result<uint64_t> swap_threads(uint32_t cur, bool gone, uint32_t next);
  // The child's threads take turns (cooperatively): the next one's pc.
  std::optional<uint64_t> child_switch_threads();
  // A child thread's turn when others are live: at most this much wall
  // time (Unicorn's uc_emu_start timeout), so one that spins on another's
  // store without a syscall does not keep the turn for ever. 0 (no
  // limit) with one thread, or while recording; else the turn starts now.
  static constexpr uint64_t kChildSliceUs = 10'000;
  uint64_t child_slice_us();
  // After uc_emu_start returned: true if the slice ran out (switch_pc_
  // then holds where the thread resumes).
  bool child_slice_ended();
  // The child has shared memory and no hook yet to release its lock.
  bool wants_release_hook() const { return child_ && !has_release_hook_ && mem_.shared().any(); }
  // A fork's child that is not recorded still runs floating point on the
  // host (sse_host_eval.h, x87_host_eval.h): a code hook of its own takes
  // each such instruction's operands, the next hook (or run()) its result.
  static void on_child_code(uc_engine* uc, uint64_t addr, uint32_t size, void* self);
  // The result of child_fp_; false if it raised an unmasked SIMD exception.
  bool finish_child_fp();
  // A call the kernel parked (pause, sigsuspend, a sleep, a timed futex
  // wait): the child has one thread, so it waits here as switch_threads
  // would have the recorded process wait. False: nothing can end it.
  bool wait_in_child();
  [[noreturn]] void end_child();

  uc_engine* uc_;
  const ArchDesc& arch_;
  const GuestArch& guest_;
  GuestMemory& mem_;
  LinuxKernel& kernel_;
  RegisterTracker& tracker_;
  TraceEmitter& emit_;
  const RecordOptions& opts_;
  TraceMirror* mirror_;
  std::vector<std::string>& verify_errors_;
  EmulatorView view_;
  HostFpEval fp_eval_;
  X87ImageFixup x87_image_;
  MissingInstructions missing_;
  ThreadContexts contexts_;
  uint64_t quantum_;
  uint64_t slice_left_ = 0;  // instructions left in the running thread's turn; 0: one thread, no turns
  bool switch_requested_ = false;
  std::optional<uint64_t> redirect_pc_;
  uint64_t switch_pc_ = 0;
  uint64_t slice_start_ = 0;  // a fork's child: when the running thread's turn began (steady_ns)
  std::vector<uc_hook> hooks_;  // never deleted (see the destructor)
  std::vector<uc_hook> recording_hooks_;  // block, code, memory: deleted in a fork's child
  bool child_ = false;          // a fork's child: nothing is recorded
  uc_hook release_hook_ = 0;    // a fork's child with shared memory: HostSharedMemory::release at each instruction
  bool has_release_hook_ = false;
  uc_hook child_fp_hook_ = 0;    // on_child_code
  InsnInfo* child_fp_ = nullptr;  // the floating-point instruction on_child_code saw last
  uint64_t clock_base_ = 0;     // steps of earlier traces of the chain (restart_counting)

  // The instruction that has started but not been finished.
  InsnInfo* pending_ = nullptr;
  uint64_t pending_pc_ = 0;
  uint32_t pending_size_ = 0;
  bool stopped_ = false;
  // What the invalid-memory hook saw, for the fault message.
  std::optional<std::pair<uc_mem_type, uint64_t>> bad_access_;
  SessionResult res_;
};

}  // namespace ttd::rec
