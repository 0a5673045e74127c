// Signals (docs/recording.md, "Signals"): rt_sigaction, the per-thread
// masks, kill/tkill/tgkill to the process itself, sigaltstack,
// rt_sigpending, rt_sigsuspend, rt_sigtimedwait and rt_sigreturn, and the
// delivery Linux does on the way back to user mode: a fatal default
// action ends the process, an ignored signal is dropped, a handler gets
// its frame (signal_frame.h) and runs with sa_mask | the signal blocked.
// Delivery points are deterministic: the end of a syscall of the thread,
// the moment a thread is scheduled, and a CPU fault.
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tools/recorder/host_signal_forwarding.h"
#include "tools/recorder/linux_kernel.h"
#include "tools/recorder/syscall_restart.h"
#include "tools/recorder/signal_frame.h"

namespace ttd::rec {

namespace {

constexpr uint64_t kSaRestorerTrampoline[] = {0xd2801168, 0xd4000001};  // mov x8, #139 (rt_sigreturn); svc #0

uint64_t lowest_bits(uint64_t set) { return set & (~set + 1); }
int sig_of(uint64_t bit) { return __builtin_ctzll(bit) + 1; }

}  // namespace

SigAction LinuxKernel::action(int sig) const {
  auto it = sigactions_.find(uint64_t(sig));
  return it == sigactions_.end() ? SigAction{} : SigAction::parse(it->second);
}

bool LinuxKernel::ignored(int sig) const {
  const SigAction a = action(sig);
  return sig != kSigKill && (a.handler == SigAction::kIgn ||
                             (a.handler == SigAction::kDfl && default_action(sig) == DefaultAction::Ignore));
}

uint64_t LinuxKernel::ignored_set() const {
  uint64_t bits = 0;
  for (int sig = 1; sig <= 64; ++sig)
    if (ignored(sig)) bits |= sig_bit(sig);
  return bits;
}

int64_t LinuxKernel::sys_rt_sigaction(uint64_t sig, uint64_t act, uint64_t oact, uint64_t setsize) {
  if (sig == 0 || sig > 64 || setsize != 8) return -EINVAL;
  // struct sigaction as the kernel sees it: handler, flags, restorer, mask.
  constexpr size_t kSize = 32;
  std::vector<uint8_t> old = sigactions_.count(sig) ? sigactions_[sig] : std::vector<uint8_t>(kSize, 0);
  if (act) {
    std::vector<uint8_t> now(kSize);
    if (!copy_from_user(act, now)) return -EFAULT;
    if (sig == kSigKill || sig == kSigStop) return -EINVAL;
    sigactions_[sig] = now;
    const SigAction a = SigAction::parse(now);
    // AArch64 glibc gives no sa_restorer: Linux returns through the vDSO's
    // sigreturn, which this recorder (no vDSO) maps as a page of its own.
    if (a.has_handler() && !(a.flags & SigAction::kRestorer) && arch_.id() != ArchId::X86_64 && !sigreturn_page_)
      map_sigreturn_page();
    // Setting SIG_IGN (or a default that ignores) discards what is pending.
    if (ignored(int(sig)))
      for (uint32_t n = 1; n <= threads_.count(); ++n) signals_.dequeue(n, sig_bit(int(sig)));
  }
  if (oact && !copy_to_user(oact, old)) return -EFAULT;
  return 0;
}

void LinuxKernel::map_sigreturn_page() {
  const uint64_t page = mem_.page_size();
  auto where = mem_.find_free(page, 0x10000, arch_.mmap_top());
  if (!where || !mem_.map(*where, page, kProtRead | kProtExec, "[vdso]")) return;
  effects_.push_back({KernelEffect::Kind::Map, *where, page, uint8_t(kProtRead | kProtExec), "[vdso]", {}});
  uint8_t code[8];
  for (int i = 0; i < 2; ++i)
    for (int b = 0; b < 4; ++b) code[4 * i + b] = uint8_t(kSaRestorerTrampoline[i] >> (8 * b));
  record_raw_write(*where, code);
  sigreturn_page_ = *where;
}

int64_t LinuxKernel::sys_rt_sigprocmask(uint64_t how, uint64_t set, uint64_t oset, uint64_t setsize) {
  if (setsize != 8) return -EINVAL;
  uint64_t& mask = signals_.mask(threads_.current().number);
  const uint64_t old = mask;
  if (set) {
    uint8_t b[8];
    if (!copy_from_user(set, b)) return -EFAULT;
    uint64_t m;
    std::memcpy(&m, b, 8);
    if (how == 0) mask |= m;
    else if (how == 1) mask &= ~m;
    else if (how == 2) mask = m;
    else return -EINVAL;
    mask &= ~kUnblockable;
  }
  if (oset && !put_u64s(oset, {old})) return -EFAULT;
  return 0;
}

int64_t LinuxKernel::sys_sigaltstack(uint64_t ss, uint64_t old_ss) {
  AltStack& cur = signals_.altstack(threads_.current().number);
  uint64_t sp = 0;
  uc_reg_read(uc_, arch_.id() == ArchId::X86_64 ? int(UC_X86_REG_RSP) : int(UC_ARM64_REG_SP), &sp);
  const bool on_it = cur.contains(sp);
  if (old_ss) {
    const int32_t flags = cur.flags == AltStack::kDisable ? AltStack::kDisable : (on_it ? AltStack::kOnStack : 0);
    if (!put_u64s(old_ss, {cur.sp, uint64_t(uint32_t(flags)), cur.size})) return -EFAULT;
  }
  if (ss) {
    uint8_t b[24];
    if (!copy_from_user(ss, b)) return -EFAULT;
    if (on_it) return -EPERM;
    AltStack next;
    int32_t flags;
    std::memcpy(&next.sp, b, 8);
    std::memcpy(&flags, b + 8, 4);
    std::memcpy(&next.size, b + 16, 8);
    constexpr int32_t kAutodisarm = int32_t(1u << 31);
    flags &= ~kAutodisarm;  // accepted, not modelled: the stack stays armed
    if (flags != 0 && flags != AltStack::kDisable && flags != AltStack::kOnStack) return -EINVAL;
    if (flags == AltStack::kDisable) next = AltStack{};
    else if (next.size < (arch_.id() == ArchId::X86_64 ? 2048u : 5120u)) return -ENOMEM;  // MINSIGSTKSZ
    else next.flags = 0;
    cur = next;
  }
  return 0;
}

int64_t LinuxKernel::signal_self(uint64_t sig, SyscallOutcome& out, const SigInfo* given) {
  (void)out;  // delivery happens at the end of the call (settle_signals)
  if (sig == 0) return 0;
  if (sig > 64) return -EINVAL;
  // Linux discards an ignored signal at once unless it is blocked (a
  // sigwait may take it).
  if (ignored(int(sig)) && !(signals_.mask(threads_.current().number) & sig_bit(int(sig)))) return 0;
  SigInfo info;
  info.signo = int32_t(sig);
  info.code = SigInfo::kUser;
  info.pid = uint32_t(pid_);
  info.uid = uint32_t(::getuid());
  if (given) {
    info.code = given->code;
    info.pid = given->pid;
    info.uid = given->uid;
    info.value = given->value;
  }
  signals_.raise_process(info);
  return 0;
}

int64_t LinuxKernel::signal_thread(uint64_t tid, uint64_t sig) {
  GuestThread* t = threads_.by_tid(tid);
  if (!t || t->state == GuestThread::State::Exited) return -ESRCH;
  if (sig == 0) return 0;
  if (sig > 64) return -EINVAL;
  if (ignored(int(sig)) && !(signals_.mask(t->number) & sig_bit(int(sig)))) return 0;
  SigInfo info;
  info.signo = int32_t(sig);
  info.code = SigInfo::kTkill;
  info.pid = uint32_t(pid_);
  info.uid = uint32_t(::getuid());
  signals_.raise_thread(t->number, info);
  return 0;
}

int64_t LinuxKernel::sys_rt_sigpending(uint64_t set, uint64_t setsize) {
  if (setsize > 8) return -EINVAL;
  const uint32_t me = threads_.current().number;
  const uint64_t p = signals_.pending(me) & signals_.mask(me);
  return put_u64s(set, {p}) ? 0 : -EFAULT;
}

bool LinuxKernel::sigsuspend_blocks(const uint64_t a[6]) {
  const uint32_t me = threads_.current().number;
  if (a[1] != 8 || signals_.interrupted(me)) return false;
  uint8_t b[8];
  if (!copy_from_user(a[0], b)) return false;  // call() says EFAULT
  uint64_t temp;
  std::memcpy(&temp, b, 8);
  // The mask while suspended is the argument; the frame of the handler
  // that ends the wait saves the one from before (Linux's saved_sigmask).
  if (!signals_.suspended_mask(me)) signals_.set_suspended_mask(me, signals_.mask(me));
  signals_.mask(me) = temp & ~kUnblockable;
  if (signals_.deliverable(me)) return false;
  threads_.wait(0, 0, false);  // a wait no futex wakes: only a signal ends it (interrupt_parked)
  return true;
}

bool LinuxKernel::sigtimedwait_blocks(const uint64_t a[6]) {
  GuestThread& t = threads_.current();
  if (t.wake_result || signals_.interrupted(t.number)) return false;  // timed out, or a signal came
  uint64_t set;
  uint8_t b[8];
  if (a[3] != 8 || !copy_from_user(a[0], b)) return false;
  std::memcpy(&set, b, 8);
  if (signals_.pending(t.number) & set) return false;
  std::optional<uint64_t> end;
  if (a[2]) {
    uint64_t ts[2] = {};
    if (!copy_from_user(a[2], {reinterpret_cast<uint8_t*>(ts), 16})) return false;
    if (ts[0] == 0 && ts[1] == 0) return false;  // a poll: EAGAIN now
    uint64_t until = 0;
    if (sleep_end(kClockMonotonic, 0, a[2], now_, until) != 0) return false;
    end = until;
  }
  signals_.set_wait_set(t.number, set);
  threads_.wait(0, 0, end.has_value());
  end_wait_at(end);
  return true;
}

bool LinuxKernel::pause_blocks() {
  const uint32_t me = threads_.current().number;
  if (signals_.interrupted(me) || signals_.deliverable(me)) return false;
  threads_.wait(0, 0, false);  // only a signal ends it (interrupt_parked)
  return true;
}

int64_t LinuxKernel::sys_rt_sigtimedwait(const uint64_t a[6]) {
  GuestThread& t = threads_.current();
  if (a[3] != 8) return -EINVAL;
  signals_.set_wait_set(t.number, 0);
  // A signal woke it (call() leaves the flag to this call): the wait is
  // over either way, so the thread's next call is not taken as interrupted.
  signals_.set_interrupted(t.number, false);
  const bool timed_out = t.wake_result.has_value();
  t.wake_result.reset();
  uint8_t b[8];
  if (!copy_from_user(a[0], b)) return -EFAULT;
  uint64_t set;
  std::memcpy(&set, b, 8);
  set &= ~kUnblockable;
  auto info = signals_.dequeue(t.number, set);
  if (!info) return timed_out || a[2] ? -EAGAIN : -EINTR;
  if (a[1]) {
    uint8_t raw[128];
    info->encode(raw);
    if (!copy_to_user(a[1], raw)) return -EFAULT;
  }
  return info->signo;
}

std::optional<uint64_t> LinuxKernel::sys_rt_sigreturn(SyscallOutcome& out) {
  FrameMemory fm = frame_memory();
  auto r = pop_signal_frame(arch_.id(), uc_, fm);
  if (!r) {  // Linux: a bad frame is a SIGSEGV
    out.exited = true;
    out.signal = kSigSegv;
    out.exit_code = 128 + kSigSegv;
    return std::nullopt;
  }
  const uint32_t me = threads_.current().number;
  signals_.mask(me) = r->mask & ~kUnblockable;
  AltStack& alt = signals_.altstack(me);
  if (r->altstack.flags == AltStack::kDisable) alt = AltStack{};
  else alt = AltStack{r->altstack.sp, r->altstack.size, 0};
  return r->pc;
}

FrameMemory LinuxKernel::frame_memory() {
  FrameMemory fm;
  fm.write = [this](uint64_t addr, std::span<const uint8_t> bytes) { return copy_to_user(addr, bytes); };
  fm.read = [this](uint64_t addr, std::span<uint8_t> out) { return copy_from_user(addr, out); };
  return fm;
}

bool LinuxKernel::restarts_after(Sys sys, const uint64_t a[6], const SigAction& act) const {
  int host_socket = -1;
  if (socket_call(sys))
    if (const GuestFd* f = fds_.get(int(int32_t(a[0]))); f && f->socket) host_socket = f->host;
  switch (after_handler(sys, a, host_socket)) {
    case AfterHandler::Restart: return true;
    case AfterHandler::RestartIfSaRestart: return (act.flags & SigAction::kRestart) != 0;
    case AfterHandler::Eintr: return false;
  }
  return false;
}

void LinuxKernel::interrupted_call(Sys sys, const uint64_t a[6], SyscallOutcome& out) {
  const uint32_t me = threads_.current().number;
  signals_.set_interrupted(me, false);
  out.ret = -EINTR;
  const uint64_t d = signals_.deliverable(me);
  if (d && restarts_after(sys, a, action(sig_of(lowest_bits(d))))) restart_call_ = true;
}

bool LinuxKernel::raise_host_signals() {
  if (!host_signal_pending()) return false;
  uint32_t sender[65];
  const uint64_t bits = take_host_signals(sender);
  from_outside_ |= bits;
  const uint64_t mask = signals_.mask(threads_.current().number);
  for (int sig = 1; sig <= 64; ++sig) {
    if (!(bits & sig_bit(sig))) continue;
    // As kill from another process: an ignored signal is discarded unless blocked.
    if (ignored(sig) && !(mask & sig_bit(sig))) continue;
    SigInfo info;
    info.signo = sig;
    info.code = SigInfo::kUser;
    info.pid = sender[sig];
    info.uid = uint32_t(::getuid());
    signals_.raise_process(info);
  }
  return bits != 0;
}

bool LinuxKernel::restart_after_host_signal(Sys sys, const uint64_t a[6]) {
  const uint32_t me = threads_.current().number;
  if (const uint64_t d = signals_.deliverable(me) & ~ignored_set()) {
    const SigAction act = action(sig_of(lowest_bits(d)));
    if (act.has_handler() && restarts_after(sys, a, act)) restart_call_ = true;
    return false;  // a handler runs (the call says EINTR first), or the signal kills
  }
  return true;
}

void LinuxKernel::settle_signals(SyscallOutcome& out) {
  if (out.exited || out.thread_exited) return;
  raise_host_signals();
  if (!children_.empty()) send_sigchld();
  if (timers_.due_at(now_, cpu_clock())) fire_due(now_);
  if (!signals_.any_pending()) return;
  const uint32_t me = threads_.current().number;
  // Ignored signals are dropped; one whose default action kills ends the
  // process now, whichever thread it was for, if some thread does not
  // block it (Linux's sig_fatal in complete_signal).
  for (uint32_t n = 1; n <= threads_.count(); ++n) {
    GuestThread* t = threads_.by_number(n);
    if (!t || t->state == GuestThread::State::Exited) continue;
    uint64_t d = signals_.deliverable(n);
    while (d) {
      const uint64_t bit = lowest_bits(d);
      d &= ~bit;
      const int sig = sig_of(bit);
      if (ignored(sig)) {
        signals_.dequeue(n, bit);
      } else if (action(sig).handler == SigAction::kDfl) {
        out.exited = true;
        out.signal = sig;
        out.exit_code = 128 + sig;
        return;
      }
    }
  }
  if (signals_.deliverable(me)) out.deliver_signal = true;
  interrupt_parked();
}

void LinuxKernel::interrupt_parked() {
  const GuestThread& cur = threads_.current();
  const uint32_t me = cur.number;
  const bool me_runs = cur.state == GuestThread::State::Runnable;
  // The process's signals go to the current thread if it runs and takes
  // them, else to the first thread (the main one first) that does not
  // block them.
  uint64_t shared = signals_.process_pending();
  if (me_runs) shared &= signals_.mask(me);
  auto takes_unignored = [this](uint64_t bits) {
    for (int sig = 1; sig <= 64; ++sig)
      if ((bits & sig_bit(sig)) && !ignored(sig)) return true;
    return false;
  };
  bool sleeper_woke = false;
  for (uint32_t n = 1; n <= threads_.count(); ++n) {
    GuestThread* t = threads_.by_number(n);
    if (!t || (n == me && me_runs) || t->state == GuestThread::State::Exited) continue;
    const uint64_t own = signals_.deliverable(n) & ~signals_.process_pending();
    const uint64_t takes = signals_.deliverable(n) & shared;
    const uint64_t waited = signals_.wait_set(n) & signals_.pending(n);
    shared &= ~takes;
    if (!own && !takes && !waited) continue;
    using S = GuestThread::State;
    // A sleep ends for a signal that runs a handler or kills, not for an
    // ignored one (linux_kernel_sleeps.cpp).
    if (t->state == S::Sleep && !takes_unignored(own | takes)) continue;
    if (t->state == S::FutexWait || t->state == S::IoWait || t->state == S::PollWait || t->state == S::Sleep) {
      if (t->state == S::Sleep) sleeper_woke = true;
      t->state = S::Runnable;
      t->wake_result.reset();
      t->waiting_since.reset();
      t->requeue_pi_target = 0;
      signals_.set_interrupted(n, true);
    }
  }
  if (sleeper_woke) update_timer_due();  // its end is no longer due
}

bool LinuxKernel::sigchld_wanted() const {
  if (action(kSigChld).has_handler()) return true;
  for (uint32_t n = 1; n <= threads_.count(); ++n)
    if (signals_.wait_set(n) & sig_bit(kSigChld)) return true;
  return false;
}

void LinuxKernel::add_sigchld_watches(std::vector<struct pollfd>& p) const {
  if (!sigchld_wanted()) return;
  for (const auto& [pid, pidfd] : children_)
    if (!chld_sent_.count(pid)) p.push_back(pollfd{pidfd, POLLIN, 0});
}

void LinuxKernel::send_sigchld() {
  if (!sigchld_wanted()) return;
  std::vector<struct pollfd> p;
  add_sigchld_watches(p);
  if (p.empty() || ::poll(p.data(), p.size(), 0) <= 0) return;
  bool sent = false;
  for (const auto& [pid, pidfd] : children_) {
    if (chld_sent_.count(pid)) continue;
    siginfo_t si;
    std::memset(&si, 0, sizeof si);
    // What the child's end would put in the SIGCHLD siginfo, without reaping it.
    if (::waitid(P_PID, id_t(pid), &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid != pid) continue;
    SigInfo info;
    info.signo = kSigChld;
    info.code = si.si_code;
    info.pid = uint32_t(pid);
    info.uid = uint32_t(si.si_uid);
    info.status = si.si_status;
    signals_.raise_process(info);
    chld_sent_.insert(pid);
    sent = true;
  }
  if (sent) interrupt_parked();
}

std::optional<uint64_t> LinuxKernel::deliver_signals(uint64_t resume_pc) {
  const uint32_t me = threads_.current().number;
  std::optional<uint64_t> handler_pc;
  if (restart_call_) {
    // The interrupted call runs again when the handler returns: its pc and
    // its first register as they were at the syscall.
    restart_call_ = false;
    const SyscallAbi& abi = arch_.syscall_abi();
    uc_reg_write(uc_, abi.ret, arch_.id() == ArchId::X86_64 ? &last_number_ : &last_args_[0]);
    resume_pc -= arch_.id() == ArchId::X86_64 ? 2 : 4;
  }
  FrameMemory fm = frame_memory();
  while (auto info = signals_.dequeue(me, signals_.deliverable(me))) {
    const int sig = info->signo;
    const SigAction act = action(sig);
    if (!act.has_handler()) continue;  // settle_signals dealt with the others
    FrameRequest req;
    req.info = *info;
    req.act = act;
    req.resume_pc = resume_pc;
    req.old_mask = signals_.suspended_mask(me).value_or(signals_.mask(me));
    signals_.clear_suspended_mask(me);
    req.altstack = signals_.altstack(me);
    req.restorer = sigreturn_page_;
    req.trapno = fault_trap_.trapno;
    req.err = fault_trap_.err;
    req.cr2 = fault_trap_.cr2;
    fault_trap_ = {};
    auto pc = push_signal_frame(arch_.id(), uc_, fm, req);
    if (!pc) {
      frame_failed_ = true;  // Linux: force_sigsegv
      return std::nullopt;
    }
    signals_.mask(me) = (req.old_mask | act.mask | ((act.flags & SigAction::kNoDefer) ? 0 : sig_bit(sig))) &
                        ~kUnblockable;
    if (act.flags & SigAction::kResetHand) std::memset(sigactions_[uint64_t(sig)].data(), 0, 16);  // SIG_DFL, no flags
    resume_pc = *pc;
    handler_pc = *pc;
  }
  return handler_pc;
}

bool LinuxKernel::fault_handled(int sig) {
  // Linux's force_sig_fault: a blocked or ignored fault signal kills.
  return action(sig).has_handler() && !(signals_.mask(threads_.current().number) & sig_bit(sig));
}

std::optional<uint64_t> LinuxKernel::deliver_fault(const SigInfo& info, uint64_t pc, const FaultTrap& trap) {
  effects_.clear();
  frame_failed_ = false;
  if (!fault_handled(info.signo)) return std::nullopt;
  signals_.raise_thread(threads_.current().number, info);
  fault_trap_ = trap;
  // The fault goes first (dequeue takes synchronous signals first); what
  // else is pending and unblocked nests on it, as on Linux's way out.
  return deliver_signals(pc);
}

std::optional<uint64_t> LinuxKernel::deliver_on_schedule(uint64_t pc, uint64_t steps, SyscallOutcome& out) {
  effects_.clear();
  catch_up_clock(steps);
  frame_failed_ = false;
  settle_signals(out);
  if (out.exited || !out.deliver_signal) return std::nullopt;
  return deliver_signals(pc);
}

}  // namespace ttd::rec
