// Signals sent to `ttd record` from outside (Ctrl-C, kill, timeout, a
// parent's kill of a followed child) go to the guest, as rr forwards
// them, instead of killing the recorder with its trace half written
// (docs/recording.md, "Stopping a recording"). The host handler only
// notes the signal (async-signal-safe: one atomic or); the recording loop
// raises it in the guest at the next block boundary or syscall end, and a
// host call that blocks (a terminal read, wait4) returns EINTR for it.
#pragma once
#include <poll.h>
#include <time.h>

#include <cstddef>
#include <cstdint>

namespace ttd::rec {

// SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGTERM, SIGWINCH.
// Not SIGTSTP/SIGTTIN/SIGTTOU/SIGCONT: job control stops and continues the
// recorder as a whole, which stops the guest as natively (the recorder
// has no stopped state to give a guest).
uint64_t forwarded_signal_set();

// Installs the forwarding handlers for the forwarded signals that are not
// ignored now, and restores the previous dispositions when it goes. A
// signal ignored when the recording starts (nohup, `&` in a script) is
// ignored natively by the program too (exec keeps SIG_IGN): it is not
// forwarded, and ignored_at_start() tells the guest's first image.
class HostSignalForwarding {
 public:
  HostSignalForwarding();
  ~HostSignalForwarding();
  HostSignalForwarding(const HostSignalForwarding&) = delete;
  HostSignalForwarding& operator=(const HostSignalForwarding&) = delete;
  uint64_t ignored_at_start() const { return ignored_; }

 private:
  uint64_t installed_ = 0, ignored_ = 0;
  struct Saved;
  Saved* saved_;
};

// Whether a forwarded signal came and was not taken yet (one relaxed load).
bool host_signal_pending();
// Takes the signals that came (bit sig-1 each) and, per signal, the
// sender's pid from its siginfo (0 if unknown).
uint64_t take_host_signals(uint32_t sender_pid[65]);
// Sleeps until a forwarded signal comes (returns at once if one came and
// was not taken), without the race of a check followed by pause().
void wait_for_host_signal();
// ppoll(2) that a forwarded signal always ends with -1 / EINTR, even one
// that came after the caller's last host_signal_pending() and before the
// poll began (it is checked with the signals blocked, and ppoll unblocks
// them atomically). A plain poll would sleep through it until the next
// signal or the end of the wait.
int poll_or_host_signal(pollfd* fds, size_t n, const timespec* timeout);
// A fork's child does not inherit its parent's pending signals.
void forget_host_signals();

// Ends this process by `sig` with its default action, as the program it
// recorded ended (the parent or shell sees that death): SIG_DFL restored,
// unblocked, sent to itself. Returns only if that action does not end a
// process.
void die_of_signal(int sig);

// Blocks the forwarded signals in the calling thread while it lives, so
// threads started meanwhile (the trace writer's) never take one: the
// emulator's thread must, to leave a blocking host call with EINTR.
class ForwardedSignalsBlocked {
 public:
  ForwardedSignalsBlocked();
  ~ForwardedSignalsBlocked();

 private:
  uint64_t old_[16];  // a sigset_t
};

}  // namespace ttd::rec
