// Waiting on the host (docs/recording.md, "Clocks" and "Timers"): for a
// child that is not recorded, or a pipe a child holds. Such a wait lasts
// at most until the next timer of the process is due on the virtual
// clock, then the clock reads that due time and the timer fires as it
// does when every thread waits on the recorder's own objects (a signal
// interrupts the waiting call with EINTR, or restarts it per SA_RESTART;
// a timerfd read wakes). A wait that ends first moves the clock on by its
// wall time (host_wait_clock.h). A signal sent to the recorder from
// outside ends the host wait too (host_signal_forwarding.h: poll returns
// EINTR).
#include <fcntl.h>
#include <poll.h>
#include <time.h>

#include <cerrno>
#include <cstring>

#include "tools/recorder/host_signal_forwarding.h"
#include "tools/recorder/host_wait_clock.h"

#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

uint64_t LinuxKernel::steady_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000 + uint64_t(t.tv_nsec);
}

void LinuxKernel::advance_clock_to(uint64_t now) {
  if (now <= now_) return;
  clock_ahead_ += now - now_;
  now_ = now;
  timers_.sync_due_step(clock_ahead_);
}

void LinuxKernel::note_host_wait(uint64_t since) {
  advance_clock_to(clock_after_host_wait(now_, timers_.due(), steady_ns() - since, false));
}

void LinuxKernel::child_turn_ran(uint64_t since) {
  note_host_wait(since);
  fire_due(now_);
}

int LinuxKernel::host_poll(std::vector<pollfd>& p, std::optional<uint64_t> own_ns, bool& timer_fired) {
  update_timer_due();  // not the end of a wait that ended otherwise (guest_sleeps.cpp)
  const uint64_t start = now_;
  const HostWaitBound b = host_wait_bound(start, timers_.due(), own_ns);
  const timespec ts = to_timespec(b.ns.value_or(0));
  const uint64_t since = steady_ns();
  const int r = poll_or_host_signal(p.data(), p.size(), b.ns ? &ts : nullptr);
  const int err = errno;
  timer_fired = r == 0 && b.timer;
  advance_clock_to(clock_after_host_wait(start, timers_.due(), steady_ns() - since, timer_fired));
  if (timer_fired) fire_due(now_);
  errno = err;
  return r;
}

int64_t LinuxKernel::wait_host_ready(int host, short events) {
  std::vector<pollfd> p{pollfd{host, events, 0}};
  // Ready (a regular file always is): no wait, the clock does not move.
  if (::poll(p.data(), 1, 0) != 0) return 0;
  const int fl = ::fcntl(host, F_GETFL);
  if (fl < 0 || (fl & O_NONBLOCK)) return 0;
  bool timer_fired = false;
  const int r = host_poll(p, std::nullopt, timer_fired);
  if (timer_fired) timer_ended_host_call_ = true;
  return timer_fired || (r < 0 && errno == EINTR) ? -EINTR : 0;
}

int64_t LinuxKernel::child_wait_for_fds(const std::vector<IoWatch>& watches, std::optional<uint64_t> timeout,
                                        const std::function<int64_t()>& rescan) {
  std::vector<pollfd> p;
  for (const IoWatch& w : watches)
    if (w.host_fd >= 0) p.push_back(pollfd{w.host_fd, w.events, 0});
  const uint64_t start = now_;
  const uint32_t me = threads_.current().number;
  for (;;) {
    std::optional<uint64_t> left = timeout;
    if (left) left = *left > now_ - start ? *left - (now_ - start) : 0;
    bool timer_fired = false;
    const int r = host_poll(p, left, timer_fired);
    if (r < 0 && errno == EINTR) raise_host_signals();
    else if (r < 0) return -errno;
    if (signals_.deliverable(me) & ~ignored_set()) return -EINTR;  // a handler runs, or the process ends
    if (r == 0 && !timer_fired) return 0;  // the timeout
    if (r > 0)
      if (const int64_t ready = rescan(); ready != 0) return ready;
  }
}

bool LinuxKernel::outside_signal_handled() {
  // Only a signal sent from outside can still change anything; one that
  // runs a handler in a thread not blocking it may end the wait (a
  // handler that posts a semaphore, sets a flag a futex waiter rechecks:
  // Python's SIGINT). Without one, only a fatal signal could come, so the
  // deadlock is reported instead of waiting for it.
  const uint64_t forwarded = forwarded_signal_set();
  for (int sig = 1; sig <= 64; ++sig) {
    if (!(forwarded & sig_bit(sig)) || !action(sig).has_handler()) continue;
    for (uint32_t n = 1; n <= threads_.count(); ++n)
      if (const GuestThread* t = threads_.by_number(n);
          t && t->state != GuestThread::State::Exited && !(signals_.mask(n) & sig_bit(sig)))
        return true;
  }
  return false;
}

bool LinuxKernel::wait_for_outside_signal(uint64_t steps) {
  if (!threads_.any_signal_waiter() && !outside_signal_handled()) return false;
  catch_up_clock(steps);
  const uint64_t since = steady_ns();
  wait_for_host_signal();
  note_host_wait(since);
  if (raise_host_signals()) interrupt_parked();
  return true;
}

bool LinuxKernel::wake_shared_futex_waiters() {
  if (!mem_.shared().any()) return false;
  const uint64_t wakes = mem_.shared().wakes();
  return threads_.wake_shared_futex_waiters([&](const GuestThread& t) {
    uint8_t b[4];
    uint32_t now = 0;
    if (!mem_.read(t.futex_addr, b)) return true;  // unmapped meanwhile: the call goes on (EFAULT or EAGAIN)
    std::memcpy(&now, b, 4);
    return now != *t.shared_word || wakes != t.shared_wakes;
  });
}

bool LinuxKernel::wait_for_host_io(uint64_t steps, std::optional<uint64_t> within) {
  // Another process may wake a thread parked on shared memory: looked at
  // every millisecond (the host cannot wait on our emulated futex).
  constexpr uint64_t kSharedFutexLook = 1'000'000;
  const bool shared_waits = threads_.any_shared_futex_waiter();
  if ((!has_children_ && !unrecorded_child_ && !shared_waits) || within == uint64_t(0)) return false;
  catch_up_clock(steps);
  std::vector<pollfd> p;
  for (const IoWatch& w : threads_.host_watches()) p.push_back(pollfd{w.host_fd, w.events, 0});
  const size_t io = p.size();
  add_sigchld_watches(p);  // a child's exit that sends a handled SIGCHLD (linux_kernel_signals.cpp)
  // Nothing to watch, but children run: time passes for them as it does
  // for us, so the wait for the next due time (a sleep's end, a timed
  // wait's, a timer) is in real time too.
  update_timer_due();
  if (p.empty() && !shared_waits && (children_.empty() || (timers_.due() == kNoTimer && !within))) return false;
  const uint64_t start = now_;
  for (;;) {
    bool timer_fired = false;
    std::optional<uint64_t> left = within;
    if (within) left = *within > now_ - start ? *within - (now_ - start) : 0;
    const bool look = shared_waits && (!left || *left > kSharedFutexLook);
    if (look) left = kSharedFutexLook;
    const int r = host_poll(p, left, timer_fired);
    if (shared_waits && wake_shared_futex_waiters()) {
      if (r > 0) wake_io_waiters();
      return true;
    }
    if (r == 0 && !timer_fired && look) continue;
    if (r == 0 && !timer_fired) return false;  // the timed wait's end came first
    if (r < 0 && errno == EINTR) {
      if (raise_host_signals()) interrupt_parked();  // a signal from outside wakes a waiting thread
      if (any_runnable()) return true;
      continue;
    }
    // A timer that woke nobody (a blocked signal, a timerfd nobody
    // reads): the wait goes on until the next one.
    if (timer_fired && !any_runnable()) continue;
    if (timer_fired) return true;
    break;
  }
  wake_io_waiters();
  if (p.size() > io) send_sigchld();
  return true;
}

bool LinuxKernel::wait_in_real_time(uint64_t steps, std::optional<uint64_t> within) {
  catch_up_clock(steps);
  if (timers_.due() == kNoTimer && !within) return false;
  std::vector<pollfd> none;
  bool timer_fired = false;
  if (host_poll(none, within, timer_fired) < 0 && errno == EINTR && raise_host_signals()) interrupt_parked();
  // A timer that woke nobody (an ignored SIGALRM): the next one is waited for.
  return timer_fired || any_runnable();
}

}  // namespace ttd::rec
