#include "tests/fidelity/native_process.h"

#include <fcntl.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

namespace ttd::fidelity {

NativeProcess::~NativeProcess() {
  if (mem_fd_ >= 0) ::close(mem_fd_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int st = 0;
    ::waitpid(pid_, &st, 0);
  }
}

std::string NativeProcess::start(const std::string& program, const std::string& stdout_path) {
  int out = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0) return "cannot create " + stdout_path + ": " + std::strerror(errno);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out);
    return std::string("fork: ") + std::strerror(errno);
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until execve.
    ::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    ::personality(ADDR_NO_RANDOMIZE);
    ::dup2(out, 1);
    int in = ::open("/dev/null", O_RDONLY);
    if (in >= 0) ::dup2(in, 0);
    char* argv[] = {const_cast<char*>(program.c_str()), nullptr};
    char* envp[] = {nullptr};
    ::execve(program.c_str(), argv, envp);
    ::_exit(127);
  }
  ::close(out);
  pid_ = pid;
  int st = 0;
  if (::waitpid(pid_, &st, 0) != pid_ || !WIFSTOPPED(st)) {
    pid_ = -1;
    return "the child did not stop at execve of " + program;
  }
  std::string mem = "/proc/" + std::to_string(pid_) + "/mem";
  mem_fd_ = ::open(mem.c_str(), O_RDWR | O_CLOEXEC);
  if (mem_fd_ < 0) return "cannot open " + mem + ": " + std::strerror(errno);
  return {};
}

bool NativeProcess::step() {
  if (pid_ <= 0) return false;
  if (::ptrace(PTRACE_SINGLESTEP, pid_, nullptr, nullptr) != 0) return false;
  int st = 0;
  if (::waitpid(pid_, &st, 0) != pid_) return false;
  if (WIFEXITED(st) || WIFSIGNALED(st)) {
    exit_code_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    pid_ = -1;
    return false;
  }
  return true;
}

std::string NativeProcess::read_state(NativeState& out) const {
  if (pid_ <= 0) return "the process has exited";
  if (::ptrace(PTRACE_GETREGS, pid_, nullptr, &out.regs) != 0) return std::string("PTRACE_GETREGS: ") + std::strerror(errno);
  if (::ptrace(PTRACE_GETFPREGS, pid_, nullptr, &out.fp) != 0) return std::string("PTRACE_GETFPREGS: ") + std::strerror(errno);
  return {};
}

bool NativeProcess::read_memory(uint64_t addr, std::span<uint8_t> out) const {
  if (mem_fd_ < 0) return false;
  return ::pread(mem_fd_, out.data(), out.size(), off_t(addr)) == ssize_t(out.size());
}

std::string NativeProcess::hide_trap_flag(std::span<const uint8_t> insn) {
  constexpr uint64_t kTF = 0x100;
  // Prefixes (operand size, REX) first; pushfw and pushfq both keep TF in
  // the pushed image's second byte.
  size_t i = 0;
  while (i < insn.size() && (insn[i] == 0x66 || (insn[i] & 0xf0) == 0x40)) ++i;
  if (i >= insn.size()) return {};
  bool pushf = insn[i] == 0x9c;
  bool syscall = insn[i] == 0x0f && i + 1 < insn.size() && insn[i + 1] == 0x05;
  if (!pushf && !syscall) return {};
  user_regs_struct regs;
  if (::ptrace(PTRACE_GETREGS, pid_, nullptr, &regs) != 0) return std::string("PTRACE_GETREGS: ") + std::strerror(errno);
  if (syscall) {
    if (!(regs.r11 & kTF)) return {};
    regs.r11 &= ~kTF;
    if (::ptrace(PTRACE_SETREGS, pid_, nullptr, &regs) != 0) return std::string("PTRACE_SETREGS: ") + std::strerror(errno);
    return {};
  }
  uint8_t b = 0;  // the byte of the pushed image that holds TF
  if (::pread(mem_fd_, &b, 1, off_t(regs.rsp + 1)) != 1) return "cannot read the pushed flags";
  if (!(b & 1)) return {};
  b &= uint8_t(~1u);
  if (::pwrite(mem_fd_, &b, 1, off_t(regs.rsp + 1)) != 1) return std::string("cannot rewrite the pushed flags: ") + std::strerror(errno);
  return {};
}

}  // namespace ttd::fidelity
