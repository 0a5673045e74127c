// Waiting for sockets another process makes ready (docs/recording.md,
// "Sockets"). A pipe of the program becomes ready only by a syscall of
// one of its threads, after which LinuxKernel::call wakes its waiters; a
// socket whose peer is elsewhere becomes ready at any time. So at every
// thread switch the recorder asks the host (poll, timeout 0) about the
// sockets parked threads wait on, and when no thread can run it blocks in
// the host's poll until one is ready, or for the shortest timeout a
// poll/select/epoll_wait on them asked (real time: the data comes from a
// real peer). Until the program makes a socket this is one test.
#include <poll.h>

#include <cerrno>

#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

constexpr uint64_t kNanosPerMs = 1000000;

bool waits(const GuestThread& t) {
  return t.state == GuestThread::State::IoWait || t.state == GuestThread::State::PollWait;
}

bool watches_outside(const GuestThread& t) {
  for (const IoWatch& w : t.io_watch)
    if (w.outside) return true;
  return false;
}

}  // namespace

void LinuxKernel::poll_outside_io() {
  if (!sockets_made_ || !threads_.any_io_waiter()) return;
  std::vector<pollfd> p;
  for (const IoWatch& w : threads_.host_watches())
    if (w.outside) p.push_back(pollfd{w.host_fd, w.events, 0});
  if (p.empty()) return;
  // How long the host may block: not at all while a thread can run or a
  // wait of another kind times out (virtual time, pick_next), or while
  // children may make a pipe ready (wait_for_host_io waits for those);
  // else until a socket is ready or the shortest timeout on one passes.
  int timeout_ms = 0;
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
    if (!other_timed)
      timeout_ms = !shortest ? -1 : int(std::min<uint64_t>((*shortest + kNanosPerMs - 1) / kNanosPerMs, 1 << 30));
  }
  // EINTR: polled again, as wait_for_host_io does (with no thread able
  // to run, giving up would be reported as a deadlock).
  int r;
  while ((r = ::poll(p.data(), p.size(), timeout_ms)) < 0 && errno == EINTR) {
  }
  if (r > 0) wake_io_waiters();
}

}  // namespace ttd::rec
