// New processes: fork, vfork and clone/clone3 without CLONE_THREAD make a
// host fork of the recorder. The trace records the process `ttd record`
// started; a child goes on being emulated, unrecorded, in the forked
// recorder (the session stops writing there), and its execve runs the new
// program natively on the host (host_exec.h). wait4 and waitid, and kill
// of another process, go to the host. docs/recording.md, "Processes".
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tools/recorder/host_exec.h"
#include "tools/recorder/host_signal_forwarding.h"
#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

// What a new process may ask for besides its exit signal (the low byte).
constexpr uint64_t kProcessFlags =
    kCloneVm | kCloneVfork | kCloneSettls | kCloneParentSettid | kCloneChildCleartid | kCloneChildSettid;
constexpr int kSigchld = 17;
constexpr size_t kMaxArgs = 1 << 16;       // argv / envp entries read from the guest
constexpr size_t kMaxArg = 128 * 1024;     // bytes of one (MAX_ARG_STRLEN)
constexpr size_t kRusageSize = 144;        // struct rusage on 64-bit Linux
constexpr size_t kWaitidInfoSize = 28;     // the siginfo fields waitid writes (signo .. status)

}  // namespace

int64_t LinuxKernel::sys_new_process(uint64_t flags, uint64_t stack, uint64_t parent_tid, uint64_t child_tid,
                                     uint64_t tls, SyscallOutcome& out) {
  const uint64_t exit_signal = flags & 0xff;
  // A child sharing memory without vfork's wait (CLONE_VM alone) would
  // need the two to run on one memory: not reproduced.
  if ((flags & ~(kProcessFlags | 0xff)) || ((flags & kCloneVm) && !(flags & kCloneVfork)) ||
      (exit_signal && exit_signal != kSigchld)) {
    note_unsupported(current_, arch_.syscalls().lookup(current_).name);
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)flags);
    unsupported_what_ = std::string("a new process with clone flags ") + hex +
                        " (fork, vfork and posix_spawn's CLONE_VM|CLONE_VFORK are followed)";
    return -ENOSYS;
  }
  const bool vfork = flags & kCloneVfork;
  // The child gets a copy of shared mappings: say so (the fork goes on).
  if (!vfork && !shared_maps_.empty())
    note_unsupported(current_, "a fork while a file is mapped shared and writable (the child's stores to it stay its own)");
  // MAP_SHARED|MAP_ANONYMOUS memory becomes the host's shared pages now,
  // so that parent and child share it as natively (host_shared_memory.h).
  if (!vfork) {
    std::vector<std::pair<uint64_t, uint64_t>> anon_shared;
    for (const auto& [start, r] : mem_.regions().all())
      if (r.name == kSharedAnonymousName) anon_shared.emplace_back(start, r.size);
    for (auto [start, size] : anon_shared)
      if (Status st = mem_.make_shared(start, size); !st) return -ENOMEM;
  }
  mem_.shared().prepare_fork();
  // vfork: the parent waits until the child execs or exits, which closes
  // the gate's close-on-exec write end (EOF on the read end).
  int gate[2] = {-1, -1};
  if (vfork && ::pipe2(gate, O_CLOEXEC) < 0) return -errno;
  // Signals from outside wait (blocked on the host) across the fork: what
  // the handler noted before is the parent's, which the child forgets;
  // what is sent to the child's pid after the fork reaches the child once
  // this returns, its own handlers (or default actions) in place.
  ForwardedSignalsBlocked hold_signals;
  pid_t pid;
  for (;;) {
    pid = ::fork();
    // A host pid equal to the recorded process's fixed pid (RecordOptions::pid)
    // would make kill(pid) and wait4(pid) ambiguous: that child leaves at
    // once and the fork is made again.
    if (pid == 0 && uint64_t(::getpid()) == cfg_.pid) ::_exit(0);
    if (pid <= 0 || uint64_t(pid) != cfg_.pid) break;
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  if (pid < 0) {
    const int err = errno;
    if (vfork) ::close(gate[0]), ::close(gate[1]);
    return -err;
  }
  if (pid == 0) {
    // A grandchild must not hold its parent's gate open.
    if (vfork_gate_ >= 0) ::close(vfork_gate_);
    vfork_gate_ = -1;
    vfork_pages_ = {};
    // A child's copy of a shared file mapping is not the file's: natively
    // the pages are shared, and the parent writes them back.
    shared_maps_.forget_all();
    mem_.shared().after_fork_in_child();
    if (cfg_.follow_fork) mem_.shared().resync();
    if (vfork) {
      ::close(gate[0]);
      vfork_gate_ = gate[1];
      vfork_pages_ = VforkPageHashes::of(mem_);
    }
    // --follow-fork: the child is recorded into its own trace; its parent
    // (and siblings) may hold its pipes, so a parked read waits on the host.
    unrecorded_child_ = !cfg_.follow_fork;
    has_children_ = cfg_.follow_fork;
    // What the child prints goes where its exec'd programs print: the
    // recorder's stdout/stderr (RecordOptions::capture_output captures
    // the recorded process only; the child's capture would die with it).
    cfg_.capture_output = false;
    reset_host_signals();
    forget_host_signals();  // pending signals are the parent's, not a fork's
    timers_.forget_for_fork();
    for (const auto& [sibling, pidfd] : children_) ::close(pidfd);  // the parent's children are not ours
    children_.clear();
    pid_ = uint64_t(::getpid());
    threads_.keep_only_current(pid_);
    signals_.keep_only(threads_.current().number);
    if (flags & kCloneChildSettid) put_u32s(child_tid, {uint32_t(pid_)});
    if ((flags & kCloneParentSettid) && (flags & kCloneVm)) put_u32s(parent_tid, {uint32_t(pid_)});
    threads_.current().clear_child_tid = (flags & kCloneChildCleartid) ? child_tid : 0;
    NewProcessChild c;
    c.stack = stack;
    if (flags & kCloneSettls) c.tls = tls;
    out.child = c;
    return 0;
  }
  has_children_ = true;
  // A pidfd turns "the child exited" into a readable descriptor a parked
  // wait4/waitid can watch (close-on-exec by Linux's default).
  if (const long pidfd = ::syscall(SYS_pidfd_open, pid, 0); pidfd >= 0) children_[pid] = int(pidfd);
  if (flags & kCloneParentSettid) put_u32s(parent_tid, {uint32_t(pid)});
  if (vfork) {
    ::close(gate[1]);
    const std::vector<ChangedPage> pages = read_changed_pages(gate[0]);
    ::close(gate[0]);
    take_vfork_child_writes(pages);
  }
  return pid;
}

void LinuxKernel::take_vfork_child_writes(const std::vector<ChangedPage>& pages) {
  // Only the bytes that differ become effects of the vfork call: what the
  // child wrote, as the trace would have shown its stores.
  std::vector<uint8_t> mine;
  for (const ChangedPage& p : pages) {
    mine.resize(p.bytes.size());
    if (!mem_.read(p.addr, mine)) continue;  // not mapped here: the child's own mapping
    for (size_t i = 0; i < mine.size();) {
      if (mine[i] == p.bytes[i]) {
        ++i;
        continue;
      }
      size_t end = i;
      while (end < mine.size() && mine[end] != p.bytes[end]) ++end;
      write_recorded(p.addr + i, std::span(p.bytes).subspan(i, end - i));
      i = end;
    }
  }
}

void LinuxKernel::return_vfork_memory(bool release) {
  if (vfork_gate_ < 0) return;
  if (!vfork_pages_.empty()) vfork_pages_.send_changed(mem_, vfork_gate_);
  if (!release) return;
  ::close(vfork_gate_);
  vfork_gate_ = -1;
}

void LinuxKernel::reset_host_signals() {
  // The recorder's own handlers (a test runner's crash reporter, ttd's
  // SIGINT) are not the guest's: signals sent to the child act by their
  // default action, or are ignored where the guest ignores them. Guest
  // handlers are not run (docs/recording.md, "Processes").
  for (int sig = 1; sig <= 64; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    // A followed child is recorded: what is sent to it goes to its guest,
    // whose trace then ends complete (host_signal_forwarding.h).
    if (cfg_.follow_fork && (forwarded_signal_set() & sig_bit(sig))) continue;
    uint64_t handler = 0;
    if (auto it = sigactions_.find(uint64_t(sig)); it != sigactions_.end()) std::memcpy(&handler, it->second.data(), 8);
    struct sigaction sa {};
    sa.sa_handler = handler == 1 ? SIG_IGN : SIG_DFL;
    ::sigaction(sig, &sa, nullptr);
  }
}

int64_t LinuxKernel::sys_execve(int dirfd, uint64_t path, uint64_t argv, uint64_t envp, uint64_t flags) {
  HostExec x;
  auto p = read_c_string(path, 4096);
  if (!p) return -EFAULT;
  x.path = *p;
  auto read_vector = [&](uint64_t at, std::vector<std::string>& v) -> int64_t {
    for (size_t i = 0; at; ++i) {
      if (i >= kMaxArgs) return -E2BIG;
      uint8_t b[8];
      if (!copy_from_user(at + 8 * i, b)) return -EFAULT;
      uint64_t ptr;
      std::memcpy(&ptr, b, 8);
      if (!ptr) break;
      auto s = read_c_string(ptr, kMaxArg);
      if (!s) return -EFAULT;
      v.push_back(std::move(*s));
    }
    return 0;
  };
  if (int64_t e = read_vector(argv, x.argv); e < 0) return e;
  if (int64_t e = read_vector(envp, x.envp); e < 0) return e;
  // The recorded process (or a --follow-fork child): the new program is
  // recorded too, into the next trace (linux_kernel_exec.cpp).
  if (!unrecorded_child_) return exec_recorded(dirfd, x.path, std::move(x.argv), std::move(x.envp), flags);
  if (dirfd != GuestFdTable::kAtFdcwd) {
    x.dirfd = fds_.host_dir(dirfd);
    if (x.dirfd < 0 && !(x.path.size() && x.path[0] == '/') && !(flags & AT_EMPTY_PATH)) return x.dirfd;
    if (flags & AT_EMPTY_PATH) {
      const GuestFd* f = fds_.get(dirfd);
      if (!f || f->kind != GuestFd::Kind::Host) return -EBADF;
      x.dirfd = f->host;
    }
  }
  x.flags = int(flags);
  x.fds = fds_.inherited_by_exec();
  x.cwd = fds_.host_dir(GuestFdTable::kAtFdcwd);
  x.umask = umask_;
  x.rlimits = rlimits_;
  x.sigmask = signals_.mask(threads_.current().number);
  for (const auto& [sig, act] : sigactions_) {
    uint64_t handler = 0;
    std::memcpy(&handler, act.data(), 8);
    if (handler == 1 /*SIG_IGN*/) x.ignored |= uint64_t(1) << (sig - 1);
  }
  return_vfork_memory(false);  // the exec closes the gate; if it fails, the child sends again later
  return exec_on_host(x);
}

int64_t LinuxKernel::sys_wait4(int64_t pid, uint64_t status, uint64_t options, uint64_t rusage) {
  {
    const uint64_t a[6] = {uint64_t(pid), status, options, rusage, 0, 0};
    if (const int64_t e = wait_for_children_on_host(Sys::Wait4, a)) return e;
  }
  int st = 0;
  struct rusage ru {};
  pid_t r;
  const uint64_t since = steady_ns();
  do r = ::wait4(pid_t(pid), &st, int(options), rusage ? &ru : nullptr);
  while (r < 0 && errno == EINTR && !host_signal_pending());  // a forwarded signal: call()
  const int err = errno;
  if (!(options & WNOHANG)) note_host_wait(since);
  if (r < 0) return -err;
  if (r > 0 && (WIFEXITED(st) || WIFSIGNALED(st))) forget_child(r);
  if (r > 0 && status && !put_u32s(status, {uint32_t(st)})) return -EFAULT;
  if (r > 0 && rusage && !copy_to_user(rusage, {reinterpret_cast<const uint8_t*>(&ru), kRusageSize}))
    return -EFAULT;
  return r;
}

int64_t LinuxKernel::sys_waitid(uint64_t idtype, uint64_t id, uint64_t infop, uint64_t options, uint64_t rusage) {
  siginfo_t si;
  std::memset(&si, 0, sizeof si);
  struct rusage ru {};
  long r;
  const int64_t host_id = host_wait_id(idtype, id);
  if (host_id < 0) return host_id;
  {
    const uint64_t a[6] = {idtype, id, infop, options, rusage, 0};
    if (const int64_t e = wait_for_children_on_host(Sys::Waitid, a)) return e;
  }
  const uint64_t since = steady_ns();
  do r = ::syscall(SYS_waitid, int(idtype), pid_t(host_id), &si, int(options), rusage ? &ru : nullptr);
  while (r < 0 && errno == EINTR && !host_signal_pending());  // a forwarded signal: call()
  const int err = errno;
  if (!(options & WNOHANG)) note_host_wait(since);
  if (r < 0) return -err;
  const bool gone = si.si_code == CLD_EXITED || si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED;
  if (si.si_pid && gone && !(options & WNOWAIT)) forget_child(si.si_pid);
  // Linux writes the rusage only when a child was reported (si_pid set),
  // and the siginfo's signo .. status fields always.
  if (rusage && si.si_pid && !copy_to_user(rusage, {reinterpret_cast<const uint8_t*>(&ru), kRusageSize}))
    return -EFAULT;
  if (infop && !copy_to_user(infop, {reinterpret_cast<const uint8_t*>(&si), kWaitidInfoSize})) return -EFAULT;
  return 0;
}

void LinuxKernel::forget_child(pid_t pid) {
  if (auto it = children_.find(pid); it != children_.end()) {
    ::close(it->second);
    children_.erase(it);
  }
  chld_sent_.erase(pid);
}

std::optional<LinuxKernel::WaitProbe> LinuxKernel::wait_probe(Sys sys, const uint64_t a[6]) {
  WaitProbe w;
  if (sys == Sys::Wait4) {
    const int32_t pid = int32_t(a[0]);
    w.options = int(a[2]);
    w.idtype = pid > 0 ? P_PID : pid == -1 ? P_ALL : P_PGID;
    w.id = uint32_t(pid > 0 ? pid : pid < -1 ? -pid : 0);
    w.probe = WEXITED | ((w.options & WUNTRACED) ? WSTOPPED : 0) | (w.options & (WCONTINUED | __WALL | __WCLONE));
  } else {
    const int64_t host_id = host_wait_id(a[0], a[1]);
    if (host_id < 0) return std::nullopt;  // call() answers
    w.idtype = int(a[0]);
    w.id = uint32_t(host_id);
    w.options = int(a[3]);
    w.probe = w.options & ~WNOHANG;
  }
  if (w.options & WNOHANG) return std::nullopt;
  siginfo_t si;
  std::memset(&si, 0, sizeof si);
  // Something to report now, or an error: call() answers at once.
  if (::waitid(idtype_t(w.idtype), id_t(w.id), &si, w.probe | WNOHANG | WNOWAIT) < 0 || si.si_pid) return std::nullopt;
  for (const auto& [pid, pidfd] : children_)
    if (w.idtype != P_PID || uint32_t(pid) == w.id) w.watches.push_back(IoWatch{-1, pidfd, POLLIN, nullptr});
  return w;
}

bool LinuxKernel::wait_blocks(Sys sys, const uint64_t a[6], uint64_t steps) {
  // The waiting thread is parked as a pipe read is, on the pidfds of the
  // children it waits for, so the other threads run (one of them may be
  // what the child waits for) and, when none can, the recorder waits on
  // the host no longer than until the next timer is due (wait_for_host_io).
  // A pidfd does not tell stops and continues: a wait for those in a
  // process of one thread waits on the host (wait_for_children_on_host).
  if (unrecorded_child_ || children_.empty()) return false;
  std::optional<WaitProbe> w = wait_probe(sys, a);
  if (!w || w->watches.empty()) return false;
  if (threads_.live() <= 1 && (w->probe & (WSTOPPED | WCONTINUED))) return false;
  threads_.wait_poll(sys == Sys::Wait4 ? "wait4" : "waitid", std::move(w->watches), std::nullopt, steps);
  return true;
}

int64_t LinuxKernel::wait_for_children_on_host(Sys sys, const uint64_t a[6]) {
  // A blocking wait that wait_blocks() did not park (a fork's unrecorded
  // child; a process of one thread waiting for stops or continues) waits
  // on the host for its children's pidfds first, so timers and signals
  // from outside end the wait (-EINTR: call() restarts it or runs the
  // handler) as they would natively; the host call then finds what to
  // report. A pidfd does not tell stops and continues: such a wait looks
  // again every 10 ms. (Until 2026-11-29 those waits blocked in wait4, and
  // an alarm came only after the child waited for had ended.)
  for (;;) {
    std::optional<WaitProbe> w = wait_probe(sys, a);
    if (!w || w->watches.empty()) return 0;
    std::vector<pollfd> p;
    for (const IoWatch& x : w->watches) p.push_back(pollfd{x.host_fd, POLLIN, 0});
    const bool stops = (w->probe & (WSTOPPED | WCONTINUED)) != 0;
    bool timer_fired = false;
    const int r = host_poll(p, stops ? std::optional<uint64_t>(10'000'000) : std::nullopt, timer_fired);
    if (timer_fired) {
      timer_ended_host_call_ = true;
      return -EINTR;
    }
    if (r < 0 && errno == EINTR && host_signal_pending()) return -EINTR;
  }
}

int64_t LinuxKernel::sys_kill(int64_t pid, uint64_t sig, SyscallOutcome& out) {
  // Natively kill() of any of the process's tids signals the process.
  const GuestThread* thread = pid > 0 ? threads_.by_tid(uint64_t(pid)) : nullptr;
  if (uint64_t(pid) == pid_ || (thread && thread->state != GuestThread::State::Exited)) return signal_self(sig, out);
  // Another process, or a process group (0, -pgid, -1), when the host
  // answers for this pid: the host's kill, as natively; a group that holds
  // the recorder brings the signal back through host_signal_forwarding.h.
  if (pid_is_host()) return ::kill(pid_t(pid), int(sig)) < 0 ? -errno : 0;
  // With a fixed pid: only a process this one started can be ours to
  // signal (before any fork: no such process).
  if (pid > 0 && (has_children_ || unrecorded_child_)) return ::kill(pid_t(pid), int(sig)) < 0 ? -errno : 0;
  return -ESRCH;
}

void LinuxKernel::show_name_on_host() const {
  if (pid_is_host()) ::prctl(PR_SET_NAME, comm_.c_str());
}

uint64_t LinuxKernel::parent_pid() const {
  if (!pid_is_host()) return 1;
  const uint64_t host = uint64_t(::getppid());
  return host == cfg_.recorder_pid ? cfg_.pid : host;
}

// With a fixed pid the recorded process leads its own group and session;
// when its pid is the host's (a fork's child, or ttd record's default),
// the host answers for it. Another process can only be a child this
// process made, or any with a host pid.
int64_t LinuxKernel::process_group_of(int64_t pid, bool session) {
  if (pid < 0) return -EINVAL;
  const bool self = pid == 0 || uint64_t(pid) == pid_;
  const bool host = pid_is_host();
  if (self && !host) return int64_t(pid_);
  if (!self && !(has_children_ || host)) return -ESRCH;
  const pid_t who = self ? 0 : pid_t(pid);
  const pid_t r = session ? ::getsid(who) : ::getpgid(who);
  return r < 0 ? -errno : r;
}

int64_t LinuxKernel::sys_setpgid(int64_t pid, int64_t pgid) {
  if (pid < 0 || pgid < 0) return -EINVAL;
  const bool self = pid == 0 || uint64_t(pid) == pid_;
  const bool host = pid_is_host();
  if (self && !host) return pgid == 0 || uint64_t(pgid) == pid_ ? 0 : -EPERM;  // already its own group's leader
  if (!self && !(has_children_ || host)) return -ESRCH;
  return ::setpgid(self ? 0 : pid_t(pid), pid_t(pgid)) < 0 ? -errno : 0;
}

}  // namespace ttd::rec
