// pidfd_open, pidfd_send_signal, waitid(P_PIDFD) and rt_sigqueueinfo
// (signals sent with a siginfo the sender makes). A guest pidfd is a
// host pidfd in the guest's descriptor table. It refers to the host
// process the guest names: the recorder itself for the program's own pid,
// a child (a host fork of the recorder), or, when the host answers for the
// program's pid (LinuxKernel::pid_is_host), any process. A poll on it asks
// the host (GuestFd::outside), which says readable when that process ends.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

constexpr uint64_t kPidfdNonblock = O_NONBLOCK;
constexpr uint64_t kPidfdIdType = 3;  // P_PIDFD
constexpr size_t kSiginfoSize = 128;

// The pid a host pidfd refers to (fdinfo's "Pid:"), or -1.
long pid_of_pidfd(int host) {
  std::ifstream in("/proc/self/fdinfo/" + std::to_string(host));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Pid:", 0) == 0) return std::strtol(line.c_str() + 4, nullptr, 10);
  return -1;
}

}  // namespace

int64_t LinuxKernel::sys_pidfd_open(int64_t pid, uint64_t flags) {
  if (flags & ~kPidfdNonblock) return -EINVAL;
  if (pid <= 0) return -EINVAL;
  pid_t host = pid_t(pid);
  if (uint64_t(pid) == pid_) {
    host = ::getpid();
  } else if (threads_.by_tid(uint64_t(pid))) {
    return -ENOENT;  // a thread that does not lead its group (Linux without PIDFD_THREAD)
  } else if (!pid_is_host() && !has_children_) {
    return -ESRCH;  // with a fixed pid, as kill: no other process is ours to name
  }
  const int h = int(::syscall(SYS_pidfd_open, host, unsigned(flags)));
  if (h < 0) return -errno;
  GuestFd f;
  f.host = h;
  f.cloexec = true;  // Linux always sets it
  f.pidfd = true;
  f.path = "anon_inode:[pidfd]";
  return fds_.add(std::move(f));
}

int64_t LinuxKernel::sys_pidfd_send_signal(int fd, uint64_t sig, uint64_t info, uint64_t flags, SyscallOutcome& out) {
  const GuestFd* f = fds_.get(fd);
  if (!f) return -EBADF;
  if (!f->pidfd) return -EBADF;
  if (flags) return -EINVAL;
  uint8_t raw[kSiginfoSize] = {};
  SigInfo given;
  if (info && !read_given_siginfo(info, raw, given)) return -EFAULT;
  if (info && given.signo != int32_t(sig)) return -EINVAL;
  // The program's own process: delivered here, as kill(getpid()).
  if (pid_of_pidfd(f->host) == long(::getpid())) return signal_self(sig, out, info ? &given : nullptr);
  const long r = ::syscall(SYS_pidfd_send_signal, f->host, int(sig), info ? raw : nullptr, 0u);
  return r < 0 ? -errno : 0;
}

int64_t LinuxKernel::sys_rt_sigqueueinfo(int64_t pid, uint64_t sig, uint64_t info, SyscallOutcome& out) {
  uint8_t raw[kSiginfoSize] = {};
  SigInfo given;
  if (!read_given_siginfo(info, raw, given)) return -EFAULT;
  if (uint64_t(pid) == pid_) return signal_self(sig, out, &given);
  if (pid <= 0) return -ESRCH;
  if (!pid_is_host() && !has_children_ && !unrecorded_child_) return -ESRCH;  // as kill
  const long r = ::syscall(SYS_rt_sigqueueinfo, pid_t(pid), int(sig), raw);
  return r < 0 ? -errno : 0;
}

// A siginfo the guest gives for a signal it sends, kill-type layout: code
// at 8, pid at 16, uid at 20, value at 24. (The host refuses one for
// another process with a code >= 0 or SI_TKILL: it may not pose as the
// kernel or as kill; for the process itself Linux takes any.)
bool LinuxKernel::read_given_siginfo(uint64_t addr, uint8_t (&raw)[128], SigInfo& out) {
  if (!copy_from_user(addr, raw)) return false;
  std::memcpy(&out.signo, raw, 4);
  std::memcpy(&out.code, raw + 8, 4);
  std::memcpy(&out.pid, raw + 16, 4);
  std::memcpy(&out.uid, raw + 20, 4);
  std::memcpy(&out.value, raw + 24, 8);
  return true;
}

int64_t LinuxKernel::host_wait_id(uint64_t idtype, uint64_t id) {
  if (idtype != kPidfdIdType) return int64_t(id);
  const GuestFd* f = fds_.get(int(int32_t(id)));
  return f && f->kind == GuestFd::Kind::Host ? f->host : -EBADF;
}

}  // namespace ttd::rec
