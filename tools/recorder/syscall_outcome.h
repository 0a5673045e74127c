// What the LinuxKernel answers the recording session for one syscall: the
// result and what the session must do next (a new thread, a fork's child,
// an exit, a signal to deliver), and the changes it made to guest memory
// (KernelEffect) for the trace to carry as the syscall's effects.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttd::rec {

// One change the kernel made to guest memory, in the order made.
struct KernelEffect {
  enum class Kind : uint8_t { MemWrite, Map, Unmap, Protect };
  Kind kind = Kind::MemWrite;
  uint64_t addr = 0, size = 0;
  uint8_t prot = 0;
  std::string name;            // Map: region description
  std::vector<uint8_t> bytes;  // MemWrite
};

// clone/clone3 made a thread: the caller gives it the parent's CPU state
// with the result register 0, this stack pointer (if not 0) and TLS base.
struct NewThread {
  uint32_t number = 0;  // GuestThread::number
  uint64_t stack = 0;
  std::optional<uint64_t> tls;
};

// fork/vfork/clone made a process and this is the child (a host fork of
// the recorder): the caller stops recording, gives the CPU the result 0,
// this stack pointer (if not 0) and TLS base, and goes on emulating it.
struct NewProcessChild {
  uint64_t stack = 0;
  std::optional<uint64_t> tls;
};

// What Linux reports of a CPU fault in an x86-64 sigcontext.
struct FaultTrap {
  uint64_t trapno = 0, err = 0, cr2 = 0;
};

struct SyscallOutcome {
  int64_t ret = 0;
  bool exited = false;        // the process is gone (exit, exit_group, fatal signal)
  bool thread_exited = false; // only the calling thread ended (exit while others live)
  bool yield = false;         // run another thread now if one can run (sched_yield)
  std::optional<NewThread> new_thread;
  std::optional<NewProcessChild> child;  // set only in the child of a fork
  int exit_code = 0;
  int signal = 0;             // fatal signal, when killed
  bool unsupported = false;   // answered -ENOSYS because we cannot emulate it
  // The calling thread has a signal to handle: once the result is in the
  // registers, deliver_signals() builds the handler's frame.
  bool deliver_signal = false;
  // rt_sigreturn: the registers are the frame's; go on at this pc (the
  // result register is not written).
  std::optional<uint64_t> resume_at;
  std::string_view name;
};

}  // namespace ttd::rec
