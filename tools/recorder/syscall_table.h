// Linux syscall numbers per architecture, mapped to the generic calls the
// kernel emulation implements (Sys) and to names for reports.
#pragma once
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "state/arch.h"

namespace ttd::rec {

// The calls the emulation knows how to answer. Numbers an architecture has
// but that are not listed here are unsupported (-ENOSYS, reported).
enum class Sys : uint8_t {
  Unsupported = 0,
  Read, Write, Readv, Writev, Close, CloseRange, Lseek,
  Exit, ExitGroup, Kill, Tkill, Tgkill,
  Brk, Mmap, Mremap, Munmap, Mprotect, Madvise, Msync,
  ArchPrctl, SetTidAddress, SetRobustList, GetRobustList, Rseq, Futex,
  Uname, Readlink, Readlinkat, Getrandom,
  ClockGettime, ClockGetres, Gettimeofday, Time, Nanosleep, ClockNanosleep, SchedYield,
  Ioctl, Prlimit64, Getrlimit, Setrlimit, Getpriority, Setpriority, Getrusage, Times,
  SchedGetscheduler, SchedGetparam, SchedGetPriorityMax, SchedGetPriorityMin,
  Getpid, Gettid, Getppid, Getuid, Geteuid, Getgid, Getegid,
  RtSigaction, RtSigprocmask, Sigaltstack, RtSigreturn, RtSigpending, RtSigsuspend, RtSigtimedwait,
  Pause, Alarm, Setitimer, Getitimer,
  Fstat, Newfstatat,
  // Files on the host (guest_fd_table.h), x86-64's path-only forms mapped
  // onto the *at calls.
  Open, Openat, MemfdCreate, Stat, Lstat, Statx, Access, Faccessat, Faccessat2,
  Pread64, Pwrite64, Getdents64, Getcwd, Chdir, Fchdir, Fcntl,
  Dup, Dup2, Dup3, Pipe, Pipe2, Fadvise64, Unlink, Unlinkat, Umask,
  // Waiting for descriptors (poll_calls.cpp).
  Poll, Ppoll, Select, Pselect6,
  // eventfd and epoll, kept by the recorder (linux_kernel_eventfd.cpp,
  // poll_calls_epoll.cpp).
  Eventfd, Eventfd2, EpollCreate, EpollCreate1, EpollCtl, EpollWait, EpollPwait, EpollPwait2,
  // More process calls.
  Prctl, Sysinfo, Getresuid, Getresgid, SchedGetaffinity,
  // File-system information (linux_kernel_fsinfo.cpp).
  Statfs, Fstatfs, Getxattr, Lgetxattr, Fgetxattr, Listxattr, Llistxattr, Flistxattr,
  // Sockets, on the host (socket_calls.h).
  Socket, Getsockname, Getpeername, Socketpair, Bind, Listen, Accept, Accept4, Connect, Shutdown,
  Setsockopt, Getsockopt, Sendto, Recvfrom, Sendmsg, Recvmsg, Sendmmsg, Recvmmsg,
  // Process groups and sessions (linux_kernel_process.cpp); pidfds (linux_kernel_pidfd.cpp).
  Getpgrp, Getpgid, Getsid, Setpgid, PidfdOpen, PidfdSendSignal, RtSigqueueinfo,
  // Changes to the file system, on the host (linux_kernel_fs_changes.cpp);
  // x86-64's path-only forms mapped onto the *at calls.
  Mkdir, Mkdirat, Rmdir, Rename, Renameat, Renameat2, Link, Linkat, Symlink, Symlinkat,
  Chmod, Fchmod, Fchmodat, Chown, Lchown, Fchown, Fchownat, Truncate, Ftruncate, Fallocate,
  Fsync, Fdatasync, Syncfs, Sync, Flock, Utimensat, Mknod, Mknodat, CopyFileRange, Sendfile, Creat,
  Setxattr, Lsetxattr, Fsetxattr, Removexattr, Lremovexattr, Fremovexattr,
  // Memory protection keys: none (the emulated CPU has no PKU).
  PkeyAlloc, PkeyFree,
  // Credentials: the host's (linux_kernel_ids.cpp).
  Setuid, Setgid, Setreuid, Setregid, Setresuid, Setresgid, Setfsuid, Setfsgid, Getgroups, Setgroups, Capget,
  // Threads (linux_kernel_threads.cpp); new processes, exec in a fork's
  // child and waiting for children (linux_kernel_process.cpp).
  Clone, Clone3, Fork, Vfork, Execve, Execveat, Wait4, Waitid,
  // POSIX timers and timerfds on the step clock (process_timers_posix.cpp,
  // process_timers_timerfd.cpp).
  TimerCreate, TimerSettime, TimerGettime, TimerGetoverrun, TimerDelete, TimerfdCreate, TimerfdSettime,
  TimerfdGettime,
};

struct SyscallEntry {
  Sys sys = Sys::Unsupported;
  std::string_view name;  // Linux's name, for reports
};

// Linux's name for every number the architecture has ("" for the unused).
std::string_view linux_syscall_name_x86_64(uint64_t number);
std::string_view linux_syscall_name_aarch64(uint64_t number);

class SyscallTable {
 public:
  using NameOf = std::string_view (*)(uint64_t number);
  SyscallTable(NameOf all_names, std::initializer_list<std::pair<const uint64_t, SyscallEntry>> entries)
      : all_names_(all_names), map_(entries) {}
  // Numbers not listed are unsupported, named from Linux's list; a number
  // Linux does not have is "unknown".
  SyscallEntry lookup(uint64_t number) const {
    auto it = map_.find(number);
    if (it != map_.end()) return it->second;
    const std::string_view name = all_names_(number);
    return SyscallEntry{Sys::Unsupported, name.empty() ? std::string_view("unknown") : name};
  }

 private:
  NameOf all_names_;
  std::unordered_map<uint64_t, SyscallEntry> map_;
};

const SyscallTable& syscall_table_x86_64();
const SyscallTable& syscall_table_aarch64();

}  // namespace ttd::rec
