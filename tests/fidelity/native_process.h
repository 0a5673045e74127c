// A static x86-64 program run natively under ptrace, one instruction at a
// time: the ground truth the recorder is compared with.
//
// Contract: start() forks, disables ASLR (personality ADDR_NO_RANDOMIZE),
// sends the child's stdout to `stdout_path`, and stops it at its first
// instruction. step() executes exactly one instruction (PTRACE_SINGLESTEP)
// and returns false once the process has exited. The destructor kills and
// reaps a child that is still alive, so no test leaves a process behind.
#pragma once
#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <span>
#include <string>

namespace ttd::fidelity {

struct NativeState {
  user_regs_struct regs{};
  user_fpregs_struct fp{};  // FXSAVE image: cwd swd ftw(abridged) ... st_space xmm_space
};

class NativeProcess {
 public:
  NativeProcess() = default;
  ~NativeProcess();
  NativeProcess(const NativeProcess&) = delete;
  NativeProcess& operator=(const NativeProcess&) = delete;

  // Empty string on success, else what failed.
  std::string start(const std::string& program, const std::string& stdout_path);
  // One instruction; false when the process exited (exit_code() tells how).
  bool step();
  // Registers now; empty string on success.
  std::string read_state(NativeState& out) const;
  // Guest memory through /proc/PID/mem; false if it cannot be read.
  bool read_memory(uint64_t addr, std::span<uint8_t> out) const;
  // Undoes the debugger's own footprint after `insn` (its bytes) ran:
  // single-stepping sets TF, which pushf pushes and syscall copies into
  // r11; a program running undebugged has it clear. Empty string on success.
  std::string hide_trap_flag(std::span<const uint8_t> insn);
  bool exited() const { return pid_ <= 0; }
  int exit_code() const { return exit_code_; }

 private:
  pid_t pid_ = -1;
  int mem_fd_ = -1;
  int exit_code_ = -1;
};

}  // namespace ttd::fidelity
