#include "tools/recorder/host_signal_forwarding.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace ttd::rec {

namespace {

constexpr int kForwarded[] = {SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGTERM, SIGWINCH};

std::atomic<uint64_t> g_pending{0};
std::atomic<uint32_t> g_sender[65];

void on_host_signal(int sig, siginfo_t* si, void*) {
  if (sig <= 0 || sig > 64) return;
  g_sender[sig].store(si && si->si_code <= 0 ? uint32_t(si->si_pid) : 0, std::memory_order_relaxed);
  g_pending.fetch_or(uint64_t(1) << (sig - 1), std::memory_order_release);
}

sigset_t forwarded_sigset() {
  sigset_t s;
  sigemptyset(&s);
  for (int sig : kForwarded) sigaddset(&s, sig);
  return s;
}

// The mask a wait unblocks atomically: the caller's, the forwarded ones taken out.
sigset_t without_forwarded(const sigset_t& mask) {
  sigset_t s = mask;
  for (int sig : kForwarded) sigdelset(&s, sig);
  return s;
}

}  // namespace

uint64_t forwarded_signal_set() {
  uint64_t bits = 0;
  for (int sig : kForwarded) bits |= uint64_t(1) << (sig - 1);
  return bits;
}

struct HostSignalForwarding::Saved {
  struct sigaction old[65];
};

HostSignalForwarding::HostSignalForwarding() : saved_(new Saved{}) {
  for (int sig : kForwarded) {
    struct sigaction cur {};
    ::sigaction(sig, nullptr, &cur);
    if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN) {
      ignored_ |= uint64_t(1) << (sig - 1);
      continue;
    }
    struct sigaction sa {};
    sa.sa_sigaction = on_host_signal;
    // No SA_RESTART: a host call the guest waits in returns EINTR, and the
    // kernel decides as Linux would (restart, EINTR, or the handler).
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (::sigaction(sig, &sa, &saved_->old[sig]) == 0) installed_ |= uint64_t(1) << (sig - 1);
  }
}

HostSignalForwarding::~HostSignalForwarding() {
  for (int sig : kForwarded)
    if (installed_ & (uint64_t(1) << (sig - 1))) ::sigaction(sig, &saved_->old[sig], nullptr);
  delete saved_;
}

bool host_signal_pending() { return g_pending.load(std::memory_order_relaxed) != 0; }

uint64_t take_host_signals(uint32_t sender_pid[65]) {
  const uint64_t bits = g_pending.exchange(0, std::memory_order_acquire);
  for (int sig = 1; sig <= 64; ++sig) sender_pid[sig] = g_sender[sig].load(std::memory_order_relaxed);
  return bits;
}

void forget_host_signals() { g_pending.store(0, std::memory_order_relaxed); }

void wait_for_host_signal() {
  const sigset_t fwd = forwarded_sigset();
  sigset_t old;
  ::pthread_sigmask(SIG_BLOCK, &fwd, &old);
  const sigset_t during = without_forwarded(old);
  // Blocked while checking, so one that comes between the check and the
  // sleep wakes sigsuspend instead of being missed.
  while (!host_signal_pending()) ::sigsuspend(&during);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

int poll_or_host_signal(pollfd* fds, size_t n, const timespec* timeout) {
  const sigset_t fwd = forwarded_sigset();
  sigset_t old;
  ::pthread_sigmask(SIG_BLOCK, &fwd, &old);
  const sigset_t during = without_forwarded(old);
  int r;
  if (host_signal_pending()) {
    r = -1;
    errno = EINTR;
  } else {
    r = ::ppoll(fds, n, timeout, &during);
  }
  const int err = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = err;
  return r;
}

ForwardedSignalsBlocked::ForwardedSignalsBlocked() {
  static_assert(sizeof old_ >= sizeof(sigset_t));
  const sigset_t s = forwarded_sigset();
  sigset_t old;
  ::pthread_sigmask(SIG_BLOCK, &s, &old);
  std::memcpy(old_, &old, sizeof old);
}

ForwardedSignalsBlocked::~ForwardedSignalsBlocked() {
  sigset_t old;
  std::memcpy(&old, old_, sizeof old);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void die_of_signal(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(sig, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::kill(::getpid(), sig);
}

}  // namespace ttd::rec
