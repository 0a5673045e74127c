// Waiting for sockets another process makes ready (docs/recording.md,
// "Sockets"). A pipe of the program becomes ready only by a syscall of
// one of its threads, after which LinuxKernel::call wakes its waiters; a
// socket whose peer is elsewhere becomes ready at any time. So at every
// thread switch the recorder asks the host (poll, timeout 0) about the
// sockets parked threads wait on, and when no thread can run it blocks in
// the host's poll until one is ready, for the shortest timeout a
// poll/select/epoll_wait on them asked (real time: the data comes from a
// real peer), or until the next timer is due (linux_kernel_host_waits.cpp).
// The same for the host's stdin, a terminal, a FIFO or an inherited pipe
// (outside_fds.h). Without such a waiter this is a loop over
// the threads.
#include <poll.h>

#include <cerrno>

#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

bool waits(const GuestThread& t) {
  return t.state == GuestThread::State::IoWait || t.state == GuestThread::State::PollWait;
}

bool watches_outside(const GuestThread& t) {
  for (const IoWatch& w : t.io_watch)
    if (w.outside) return true;
  return false;
}

}  // namespace

void LinuxKernel::poll_outside_io(uint64_t steps) {
  if (!threads_.any_outside_waiter()) return;
  std::vector<pollfd> p;
  for (const IoWatch& w : threads_.host_watches())
    if (w.outside) p.push_back(pollfd{w.host_fd, w.events, 0});
  if (p.empty()) return;
  catch_up_clock(steps);
  // How long the host may block: not at all while a thread can run or a
  // wait of another kind times out (virtual time, pick_next), or while
  // children may make a pipe ready (wait_for_host_io waits for those);
  // else until a socket is ready, the shortest timeout on one passes or
  // the next timer is due (host_poll: it then fires).
  std::optional<uint64_t> own = 0;
  const bool idle = threads_.current().state != GuestThread::State::Runnable && !threads_.other_runnable();
  if (idle && !has_children_) {
    std::optional<uint64_t> shortest;
    bool other_timed = false;
    for (uint32_t n = 1; n <= threads_.count(); ++n) {
      const GuestThread& t = *threads_.by_number(n);
      if (t.state == GuestThread::State::Exited || t.state == GuestThread::State::Runnable || !t.timed) continue;
      if (waits(t) && watches_outside(t))
        shortest = std::min(shortest.value_or(~0ull), t.poll_timeout);
      else
        other_timed = true;
    }
    if (!other_timed) own = shortest;
  }
  int r;
  if (own == 0) {
    while ((r = ::poll(p.data(), p.size(), 0)) < 0 && errno == EINTR) {
    }
  } else {
    // EINTR (a signal from outside) or a timer that woke nobody: polled
    // again for what is left, as wait_for_host_io does (with no thread
    // able to run, giving up would be reported as a deadlock).
    const uint64_t start = now_;
    for (;;) {
      bool timer_fired = false;
      std::optional<uint64_t> left = own;
      if (own) left = *own > now_ - start ? *own - (now_ - start) : 0;
      r = host_poll(p, left, timer_fired);
      if (r < 0 && errno == EINTR && raise_host_signals()) interrupt_parked();
      if (r > 0 || (r == 0 && !timer_fired) || any_runnable()) break;
      if (r < 0 && errno != EINTR) break;
    }
  }
  if (r > 0) wake_io_waiters();
}

}  // namespace ttd::rec
