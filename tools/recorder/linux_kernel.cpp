// Syscall dispatch, and the process / time / signal calls.
#include "tools/recorder/linux_kernel.h"

#include <fcntl.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "tools/recorder/guest_proc_files.h"
#include "tools/recorder/linux_abi_constants.h"

namespace ttd::rec {

namespace {

constexpr int kAtFdcwd = GuestFdTable::kAtFdcwd;

}  // namespace

std::string task_name_of(std::string_view execfn) {
  // fs/exec.c: __set_task_comm(kbasename(bprm->filename)), TASK_COMM_LEN 16.
  const size_t slash = execfn.rfind('/');
  if (slash != std::string_view::npos) execfn.remove_prefix(slash + 1);
  return std::string(execfn.substr(0, 15));
}

LinuxKernel::LinuxKernel(uc_engine* uc, GuestMemory& mem, const GuestArch& arch, ProcessConfig cfg)
    : uc_(uc), mem_(mem), arch_(arch), cfg_(std::move(cfg)) {
  brk_ = brk_mapped_end_ = cfg_.brk_base;
  pid_ = cfg_.pid;
  threads_ = GuestThreads(pid_);
  comm_ = task_name_of(cfg_.execfn);
  fds_.set_max_fds(rlimits_.max_fds());
  // The loader maps an 8 MiB stack that does not grow (process_loader.cpp):
  // a larger soft RLIMIT_STACK would promise more (Linux's default is 8 MiB).
  constexpr int kRlimitStack = 3;
  constexpr uint64_t kStackMapped = 8ull << 20;
  rlimits_.lower_reported(kRlimitStack, kStackMapped);
  for (int n : cfg_.inherit_fds) {
    if (n <= 2 || fds_.get(n)) continue;
    // A copy, close-on-exec in the recorder: the guest's table owns it.
    const int h = ::fcntl(n, F_DUPFD_CLOEXEC, 3);
    if (h < 0) continue;
    GuestFd f;
    f.host = h;
    f.path = host_fd_target(h);
    fds_.add(std::move(f), n);
  }
  // Natively an inherited SIG_IGN survives exec: the program starts ignoring it.
  for (int sig = 1; sig <= 64; ++sig)
    if (cfg_.ignored_signals & sig_bit(sig)) {
      std::vector<uint8_t> raw(32, 0);
      raw[0] = 1;  // SIG_IGN
      sigactions_[uint64_t(sig)] = raw;
    }
  show_name_on_host();
}

SyscallOutcome LinuxKernel::call(uint64_t number, const uint64_t a[6], uint64_t steps) {
  effects_.clear();
  code_may_have_changed_ = false;
  // The virtual clock: the steps plus the host waits so far (host_wait_clock.h).
  steps += clock_ahead_;
  now_ = std::max(now_, steps);
  current_ = number;
  unsupported_now_ = false;
  unsupported_what_.clear();
  SyscallEntry e = arch_.syscalls().lookup(number);
  SyscallOutcome out;
  out.name = e.name;
  last_number_ = number;
  std::copy(a, a + 6, last_args_);
  auto fd = [&](int i) { return int(int32_t(a[i])); };
  int64_t& r = out.ret;
  // A signal woke this thread from a wait (linux_kernel_signals.cpp).
  const bool interrupted = signals_.interrupted(threads_.current().number) && e.sys != Sys::RtSigtimedwait;
  if (interrupted) {
    interrupted_call(e.sys, a, out);
    end_interrupted_sleep(e.sys, a, out);  // (its time left in rem)
  } else for (bool again = true; again;) {
  again = false;
  switch (e.sys) {
    case Sys::Read: r = sys_read(fd(0), a[1], a[2]); break;
    case Sys::Write: r = sys_write(fd(0), a[1], a[2]); break;
    case Sys::Readv: r = sys_iov(false, fd(0), a[1], a[2]); break;
    case Sys::Writev: r = sys_iov(true, fd(0), a[1], a[2]); break;
    case Sys::Pread64: r = sys_pread(false, fd(0), a[1], a[2], int64_t(a[3])); break;
    case Sys::Pwrite64: r = sys_pread(true, fd(0), a[1], a[2], int64_t(a[3])); break;
    case Sys::Close: r = sys_close(fd(0)); break;
    case Sys::CloseRange: r = sys_close_range(a[0], a[1], a[2]); break;
    case Sys::Lseek: r = sys_lseek(fd(0), int64_t(a[1]), a[2]); break;
    case Sys::Open: r = sys_openat(kAtFdcwd, a[0], a[1], a[2]); break;
    case Sys::Openat: r = sys_openat(fd(0), a[1], a[2], a[3]); break;
    case Sys::MemfdCreate: r = sys_memfd_create(a[0], a[1]); break;
    case Sys::Stat: r = sys_newfstatat(kAtFdcwd, a[0], a[1], 0, steps); break;
    case Sys::Lstat: r = sys_newfstatat(kAtFdcwd, a[0], a[1], 0x100 /*AT_SYMLINK_NOFOLLOW*/, steps); break;
    case Sys::Statx: r = sys_statx(fd(0), a[1], a[2], a[3], a[4]); break;
    case Sys::Access: r = sys_faccessat(kAtFdcwd, a[0], a[1], 0); break;
    case Sys::Faccessat: r = sys_faccessat(fd(0), a[1], a[2], 0); break;
    case Sys::Faccessat2: r = sys_faccessat(fd(0), a[1], a[2], a[3]); break;
    case Sys::Getdents64: r = sys_getdents64(fd(0), a[1], a[2]); break;
    case Sys::Getcwd: r = sys_getcwd(a[0], a[1]); break;
    case Sys::Chdir: r = sys_chdir(a[0]); break;
    case Sys::Fchdir: r = sys_fchdir(fd(0)); break;
    case Sys::Fcntl: r = sys_fcntl(fd(0), a[1], a[2]); break;
    case Sys::Dup: r = fds_.dup(fd(0), 0, false); break;
    case Sys::Dup2: r = fds_.dup_to(fd(0), fd(1), false); break;
    case Sys::Dup3:
      r = (fd(0) == fd(1) || (a[2] & ~uint64_t(0x80000))) ? -EINVAL : fds_.dup_to(fd(0), fd(1), a[2] != 0);
      break;
    case Sys::Pipe: r = sys_pipe2(a[0], 0); break;
    case Sys::Pipe2: r = sys_pipe2(a[0], a[1]); break;
    case Sys::Fadvise64: r = fds_.get(fd(0)) ? 0 : -EBADF; break;  // advice only
    case Sys::Unlink: r = sys_unlinkat(kAtFdcwd, a[0], 0); break;
    case Sys::Unlinkat: r = sys_unlinkat(fd(0), a[1], a[2]); break;
    case Sys::Mkdir:
    case Sys::Mkdirat:
    case Sys::Rmdir:
    case Sys::Rename:
    case Sys::Renameat:
    case Sys::Renameat2:
    case Sys::Link:
    case Sys::Linkat:
    case Sys::Symlink:
    case Sys::Symlinkat:
    case Sys::Chmod:
    case Sys::Fchmod:
    case Sys::Fchmodat:
    case Sys::Chown:
    case Sys::Lchown:
    case Sys::Fchown:
    case Sys::Fchownat:
    case Sys::Truncate:
    case Sys::Ftruncate:
    case Sys::Fallocate:
    case Sys::Fsync:
    case Sys::Fdatasync:
    case Sys::Syncfs:
    case Sys::Sync:
    case Sys::Flock:
    case Sys::Utimensat:
    case Sys::Mknod:
    case Sys::Mknodat:
    case Sys::CopyFileRange:
    case Sys::Sendfile:
    case Sys::Setxattr:
    case Sys::Lsetxattr:
    case Sys::Fsetxattr:
    case Sys::Removexattr:
    case Sys::Lremovexattr:
    case Sys::Fremovexattr:
    case Sys::Creat: r = sys_fs_change(e.sys, a); break;
    case Sys::Umask: r = umask_; umask_ = uint32_t(a[0] & 0777); break;
    case Sys::Prctl: r = sys_prctl(a[0], a[1]); break;
    case Sys::Sysinfo: r = sys_sysinfo(a[0], steps); break;
    case Sys::Getresuid:
    case Sys::Getresgid:
    case Sys::Setuid:
    case Sys::Setgid:
    case Sys::Setreuid:
    case Sys::Setregid:
    case Sys::Setresuid:
    case Sys::Setresgid:
    case Sys::Setfsuid:
    case Sys::Setfsgid:
    case Sys::Getgroups:
    case Sys::Setgroups:
    case Sys::Capget: r = sys_credentials(e.sys, a); break;
    case Sys::Statfs: r = sys_statfs(false, a[0], a[1]); break;
    case Sys::Fstatfs: r = sys_statfs(true, a[0], a[1]); break;
    case Sys::Getxattr: r = sys_xattr(XattrCall::Get, a[0], a[1], a[2], a[3]); break;
    case Sys::Lgetxattr: r = sys_xattr(XattrCall::LGet, a[0], a[1], a[2], a[3]); break;
    case Sys::Fgetxattr: r = sys_xattr(XattrCall::FGet, a[0], a[1], a[2], a[3]); break;
    case Sys::Listxattr: r = sys_xattr(XattrCall::List, a[0], 0, a[1], a[2]); break;
    case Sys::Llistxattr: r = sys_xattr(XattrCall::LList, a[0], 0, a[1], a[2]); break;
    case Sys::Flistxattr: r = sys_xattr(XattrCall::FList, a[0], 0, a[1], a[2]); break;
    // Host sockets (socket_calls.h).
    case Sys::Socket:
    case Sys::Socketpair:
    case Sys::Bind:
    case Sys::Listen:
    case Sys::Accept:
    case Sys::Accept4:
    case Sys::Connect:
    case Sys::Shutdown:
    case Sys::Getsockname:
    case Sys::Getpeername:
    case Sys::Setsockopt:
    case Sys::Getsockopt:
    case Sys::Sendto:
    case Sys::Recvfrom:
    case Sys::Sendmsg:
    case Sys::Recvmsg:
    case Sys::Sendmmsg:
    case Sys::Recvmmsg: r = sockets_.call(e.sys, a, out); break;
    // No protection keys: what Linux 6.1 answers on a CPU without PKU
    // (EINVAL; the man page says ENOSPC). V8 asks, and does without.
    case Sys::PkeyAlloc: r = -EINVAL; break;
    case Sys::PkeyFree: r = -EINVAL; break;
    // The process leads its own process group and session, as a program a
    // shell started as a job does; its children (host processes) are asked
    // of the host.
    case Sys::Getpgrp: r = process_group_of(0, false); break;
    case Sys::Getpgid:
    case Sys::Getsid: r = process_group_of(int64_t(int32_t(a[0])), e.sys == Sys::Getsid); break;
    case Sys::Setpgid: r = sys_setpgid(int64_t(int32_t(a[0])), int64_t(int32_t(a[1]))); break;
    case Sys::SchedGetaffinity: r = sys_sched_getaffinity(a[0], a[1], a[2]); break;
    case Sys::Exit: r = sys_exit_thread(int(a[0] & 0xff), out); break;
    case Sys::ExitGroup:
      out.exited = true;
      out.exit_code = int(a[0] & 0xff);
      break;
    // Signals (linux_kernel_signals.cpp).
    case Sys::Kill: r = sys_kill(int64_t(int32_t(a[0])), a[1], out); break;
    case Sys::PidfdOpen: r = sys_pidfd_open(int64_t(int32_t(a[0])), a[1]); break;
    case Sys::PidfdSendSignal: r = sys_pidfd_send_signal(fd(0), a[1], a[2], a[3], out); break;
    case Sys::RtSigqueueinfo: r = sys_rt_sigqueueinfo(int64_t(int32_t(a[0])), a[1], a[2], out); break;
    case Sys::Tkill: r = signal_thread(a[0], a[1]); break;
    case Sys::Tgkill: r = a[0] == pid_ ? signal_thread(a[1], a[2]) : -ESRCH; break;
    case Sys::RtSigreturn:
      // The result register is the frame's, as Linux returns it.
      if ((out.resume_at = sys_rt_sigreturn(out))) uc_reg_read(uc_, arch_.syscall_abi().ret, &r);
      break;
    case Sys::RtSigpending: r = sys_rt_sigpending(a[0], a[1]); break;
    case Sys::RtSigsuspend:
      r = a[1] != 8 ? -EINVAL : signals_.suspended_mask(threads_.current().number) ? -EINTR : -EFAULT;
      break;
    case Sys::RtSigtimedwait: r = sys_rt_sigtimedwait(a); break;
    case Sys::Pause: r = -EINTR; break;  // blocks() parked it until a signal came
    // Interval timers, POSIX timers, timerfds (process_timers.h).
    case Sys::Alarm:
    case Sys::Setitimer:
    case Sys::Getitimer:
    case Sys::TimerCreate:
    case Sys::TimerSettime:
    case Sys::TimerGettime:
    case Sys::TimerGetoverrun:
    case Sys::TimerDelete:
    case Sys::TimerfdCreate:
    case Sys::TimerfdSettime:
    case Sys::TimerfdGettime: r = timers_.call(e.sys, a, steps); break;
    case Sys::Brk: r = sys_brk(a[0]); break;
    case Sys::Mmap: r = sys_mmap(a); break;
    case Sys::Mremap: r = sys_mremap(a[0], a[1], a[2], a[3], a[4]); break;
    case Sys::Munmap: r = sys_munmap(a[0], a[1]); break;
    case Sys::Mprotect: r = sys_mprotect(a[0], a[1], a[2]); break;
    case Sys::Madvise: r = sys_madvise(a[0], a[1], a[2]); break;
    case Sys::Msync: r = sys_msync(a[0], a[1], a[2]); break;
    case Sys::ArchPrctl: r = sys_arch_prctl(a[0], a[1]); break;
    case Sys::SetTidAddress:
      threads_.current().clear_child_tid = a[0];
      r = int64_t(threads_.current().tid);
      break;
    case Sys::SetRobustList:
    case Sys::GetRobustList:
    case Sys::Futex: r = futexes_.call(e.sys, a); break;  // futex_calls.h
    case Sys::Poll:
    case Sys::Ppoll:
    case Sys::Select:
    case Sys::Pselect6: r = polls_.call(e.sys, a, steps); break;  // poll_calls.h
    case Sys::Eventfd: r = sys_eventfd(a[0], 0); break;
    case Sys::Eventfd2: r = sys_eventfd(a[0], a[1]); break;
    case Sys::EpollCreate:
    case Sys::EpollCreate1:
    case Sys::EpollCtl:
    case Sys::EpollWait:
    case Sys::EpollPwait:
    case Sys::EpollPwait2: r = polls_.call(e.sys, a, steps); break;
    // glibc registers rseq when the kernel has it; ENOSYS makes it do without.
    case Sys::Rseq: r = -ENOSYS; break;
    // x86-64: clone(flags, stack, parent_tid, child_tid, tls); the generic
    // table (AArch64): clone(flags, stack, parent_tid, tls, child_tid).
    case Sys::Clone:
      r = arch_.id() == ArchId::X86_64 ? sys_clone(a[0], a[1], a[2], a[3], a[4], out)
                                       : sys_clone(a[0], a[1], a[2], a[4], a[3], out);
      break;
    case Sys::Clone3: r = sys_clone3(a[0], a[1], out); break;
    case Sys::Fork: r = sys_new_process(17 /*SIGCHLD*/, 0, 0, 0, 0, out); break;
    case Sys::Vfork: r = sys_new_process(0x100 | 0x4000 | 17 /*CLONE_VM|CLONE_VFORK|SIGCHLD*/, 0, 0, 0, 0, out); break;
    case Sys::Execve: r = sys_execve(kAtFdcwd, a[0], a[1], a[2], 0); break;
    case Sys::Execveat: r = sys_execve(fd(0), a[1], a[2], a[3], a[4]); break;
    case Sys::Wait4: r = sys_wait4(int64_t(int32_t(a[0])), a[1], a[2], a[3]); break;
    case Sys::Waitid: r = sys_waitid(a[0], a[1], a[2], a[3], a[4]); break;
    case Sys::Uname: r = sys_uname(a[0]); break;
    case Sys::Readlink: r = sys_readlink(kAtFdcwd, a[0], a[1], a[2]); break;
    case Sys::Readlinkat: r = sys_readlink(fd(0), a[1], a[2], a[3]); break;
    case Sys::Getrandom: r = sys_getrandom(a[0], a[1]); break;
    case Sys::ClockGettime: r = sys_clock_gettime(a[0], a[1], steps); break;
    // Every clock ticks once a step: 1 ns.
    case Sys::ClockGetres:
      r = check_clock(a[0]);
      if (r == 0 && a[1] && !put_u64s(a[1], {0, 1})) r = -EFAULT;
      break;
    case Sys::Gettimeofday: {
      uint64_t ns = cfg_.epoch_nanoseconds + steps;
      r = a[0] && !put_u64s(a[0], {cfg_.epoch_seconds + ns / kNanos, (ns % kNanos) / 1000}) ? -EFAULT : 0;
      break;
    }
    case Sys::Time: {
      uint64_t now = cfg_.epoch_seconds + (cfg_.epoch_nanoseconds + steps) / kNanos;
      r = a[0] && !put_u64s(a[0], {now}) ? -EFAULT : int64_t(now);
      break;
    }
    // Virtual time: sleeping takes no steps (linux_kernel_sleeps.cpp).
    case Sys::Nanosleep:
    case Sys::ClockNanosleep: r = sys_sleep(e.sys, a, steps); break;
    case Sys::SchedYield:
      r = 0;
      out.yield = true;
      break;
    case Sys::Ioctl: r = sys_ioctl(fd(0), a[1], a[2]); break;
    case Sys::Prlimit64:
      r = (a[0] != 0 && a[0] != pid_) ? -ESRCH : sys_prlimit(a[1], a[2], a[3]);
      break;
    case Sys::Getrlimit: r = sys_prlimit(a[0], 0, a[1]); break;
    case Sys::Setrlimit: r = a[1] ? sys_prlimit(a[0], a[1], 0) : -EFAULT; break;
    case Sys::Getrusage: r = sys_getrusage(int64_t(int32_t(a[0])), a[1]); break;
    case Sys::Times: r = sys_times(a[0]); break;
    case Sys::SchedGetscheduler:
    case Sys::SchedGetparam:
    case Sys::SchedGetPriorityMax:
    case Sys::SchedGetPriorityMin: r = sys_sched_query(e.sys, int64_t(int32_t(a[0])), a[1]); break;
    case Sys::Getpriority: r = sys_priority(false, a[0], int64_t(int32_t(a[1])), 0); break;
    case Sys::Setpriority: r = sys_priority(true, a[0], int64_t(int32_t(a[1])), int64_t(int32_t(a[2]))); break;
    case Sys::Getpid: r = int64_t(pid_); break;
    case Sys::Gettid: r = int64_t(threads_.current().tid); break;
    // The recorded process's parent is pid 1 (deterministic); a child's is
    // the recorder process that forked it.
    case Sys::Getppid: r = int64_t(parent_pid()); break;
    case Sys::Getuid: r = getuid(); break;
    case Sys::Geteuid: r = geteuid(); break;
    case Sys::Getgid: r = getgid(); break;
    case Sys::Getegid: r = getegid(); break;
    case Sys::RtSigaction: r = sys_rt_sigaction(a[0], a[1], a[2], a[3]); break;
    case Sys::RtSigprocmask: r = sys_rt_sigprocmask(a[0], a[1], a[2], a[3]); break;
    case Sys::Sigaltstack: r = sys_sigaltstack(a[0], a[1]); break;
    case Sys::Fstat: r = sys_fstat(fd(0), a[1], steps); break;
    case Sys::Newfstatat: r = sys_newfstatat(fd(0), a[1], a[2], a[3], steps); break;
    case Sys::Unsupported:
      note_unsupported(number, e.name);
      r = -ENOSYS;
      break;
  }
  // A signal sent to the recorder interrupted a host call the guest waits
  // in (a terminal read, wait4): Linux restarts it unless the signal runs
  // a handler or kills (host_signal_forwarding.h).
  // So did a timer that fell due during it (wait_host_ready).
  if (r == -EINTR && (std::exchange(timer_ended_host_call_, false) | raise_host_signals()))
    again = restart_after_host_signal(e.sys, a);
  }
  // A write to a pipe nobody reads any more (a child exited): Linux sends
  // SIGPIPE (the recorder ignores it on the host, record()) and returns
  // EPIPE if the signal is ignored.
  if (r == -EPIPE && (e.sys == Sys::Write || e.sys == Sys::Writev || e.sys == Sys::Pwrite64))
    signal_self(13 /*SIGPIPE*/, out);
  now_ = std::max(now_, steps);  // (a host wait in the call moved it on)
  settle_signals(out);
  out.unsupported = unsupported_now_;
  // This call may have filled, drained or closed a pipe another thread waits on.
  wake_io_waiters();
  // dup2 / dup3 close what was on their target, as close does.
  const bool closes = e.sys == Sys::Close || e.sys == Sys::CloseRange || e.sys == Sys::Dup2 || e.sys == Sys::Dup3;
  if ((e.sys == Sys::EpollCtl || closes) && r >= 0) threads_.recheck_epoll_waiters();
  if (out.exited) {
    return_vfork_memory(true);
    write_back_shared_mappings();
  }
  return out;
}

void LinuxKernel::note_unsupported(uint64_t number, std::string_view name) {
  auto& u = unsupported_[number];
  if (u.name.empty()) u.name = std::string(name);
  ++u.count;
  unsupported_now_ = true;
  unsupported_what_ = std::string(name);
}

int64_t LinuxKernel::sys_uname(uint64_t buf) {
  // struct utsname: six 65-byte fields.
  // The host's, as the program sees natively (`hostname`, `uname -r`,
  // Python's platform.node(), /proc/sys/kernel/hostname agree), except the
  // machine: the guest's architecture.
  std::vector<uint8_t> u(6 * 65, 0);
  struct utsname host {};
  if (::uname(&host) != 0) return -errno;
  std::string machine(arch_.platform());
  const char* fields[6] = {host.sysname, host.nodename, host.release, host.version, machine.c_str(), host.domainname};
  for (int i = 0; i < 6; ++i) std::strncpy(reinterpret_cast<char*>(u.data() + 65 * i), fields[i], 64);
  return copy_to_user(buf, u) ? 0 : -EFAULT;
}

int64_t LinuxKernel::check_clock(uint64_t clock) {
  if (!StepClock::known(clock)) return -EINVAL;
  if (clock != kClockRealtimeAlarm && clock != kClockBoottimeAlarm) return 0;
  // Linux answers the _ALARM clocks only with an RTC to wake the machine:
  // the host says (the same answer every time on one machine).
  static const bool alarm_clocks = [] {
    timespec res;
    return ::clock_getres(kClockRealtimeAlarm, &res) == 0;
  }();
  return alarm_clocks ? 0 : -EINVAL;
}

int64_t LinuxKernel::sys_clock_gettime(uint64_t clock, uint64_t ts, uint64_t steps) {
  // The realtime clocks count from the epoch, the others from process
  // start (StepClock::origin); the CPU-time ones count steps only, not
  // the time waited on the host (host_wait_clock.h).
  if (const int64_t e = check_clock(clock)) return e;
  const bool cpu = clock == kClockProcessCputime || clock == kClockThreadCputime;
  const uint64_t ns = (cpu ? steps - clock_ahead_ : steps) + step_clock().origin(int(clock));
  return put_u64s(ts, {ns / kNanos, ns % kNanos}) ? 0 : -EFAULT;
}

int64_t LinuxKernel::sys_prctl(uint64_t option, uint64_t arg2) {
  constexpr uint64_t kSetName = 15, kGetName = 16;
  if (option == kSetName) {
    auto name = read_c_string(arg2, 16);
    if (!name) {
      std::vector<uint8_t> raw(15);
      if (!copy_from_user(arg2, raw)) return -EFAULT;
      name = std::string(raw.begin(), raw.end());
    }
    comm_ = name->substr(0, 15);
    show_name_on_host();
    return 0;
  }
  if (option == kGetName) {
    std::vector<uint8_t> b(16, 0);
    std::memcpy(b.data(), comm_.data(), std::min<size_t>(comm_.size(), 15));
    return copy_to_user(arg2, b) ? 0 : -EFAULT;
  }
  return -EINVAL;  // the rest are either about threads or privileges we do not model
}

int64_t LinuxKernel::sys_sysinfo(uint64_t buf, uint64_t steps) {
  // struct sysinfo (112 bytes on 64-bit): the host's memory sizes, so
  // programs size their buffers as natively; uptime from the virtual clock.
  struct ::sysinfo hs {};
  if (::sysinfo(&hs) < 0) return -errno;
  std::vector<uint8_t> b(112, 0);
  auto put = [&](size_t off, uint64_t v, int n) { std::memcpy(b.data() + off, &v, size_t(n)); };
  put(0, steps / kNanos, 8);
  put(32, hs.totalram, 8);
  put(40, hs.freeram, 8);
  put(48, hs.sharedram, 8);
  put(56, hs.bufferram, 8);
  put(64, hs.totalswap, 8);
  put(72, hs.freeswap, 8);
  put(80, 1, 2);  // procs
  put(88, hs.totalhigh, 8);
  put(96, hs.freehigh, 8);
  put(104, hs.mem_unit, 4);
  return copy_to_user(buf, b) ? 0 : -EFAULT;
}

int64_t LinuxKernel::sys_sched_getaffinity(uint64_t pid, uint64_t size, uint64_t mask) {
  if (pid != 0 && !threads_.by_tid(pid)) return -ESRCH;
  if (size < 8 || (size & 7)) return -EINVAL;
  // One CPU: the guest's threads take turns on one emulated CPU, and
  // programs that size thread pools from this (sort, xz -T0) start one
  // worker unless told otherwise.
  return put_u64s(mask, {1}) ? 8 : -EFAULT;
}

int64_t LinuxKernel::sys_arch_prctl(uint64_t code, uint64_t addr) {
  switch (code) {
    case 0x1001:  // ARCH_SET_GS
      return uc_reg_write(uc_, UC_X86_REG_GS_BASE, &addr) == UC_ERR_OK ? 0 : -EINVAL;
    case 0x1002:  // ARCH_SET_FS
      return uc_reg_write(uc_, UC_X86_REG_FS_BASE, &addr) == UC_ERR_OK ? 0 : -EINVAL;
    case 0x1003:    // ARCH_GET_FS
    case 0x1004: {  // ARCH_GET_GS
      uint64_t v = 0;
      uc_reg_read(uc_, code == 0x1003 ? UC_X86_REG_FS_BASE : UC_X86_REG_GS_BASE, &v);
      return put_u64s(addr, {v}) ? 0 : -EFAULT;
    }
    default: return -EINVAL;
  }
}

}  // namespace ttd::rec
