// GuestThreads' sleeps and timed waits: a thread in nanosleep /
// clock_nanosleep, or in a futex wait, PI lock, poll, select, epoll_wait
// or sigtimedwait with a timeout, is parked until the virtual clock
// reaches its end, so the other threads run meanwhile (their steps move
// the clock), as natively. The end is a due time like a timer's
// (ProcessTimers::update_due takes the earliest): it fires when the
// clock passes it, when every thread waits (the clock jumps there) or
// bounds a host wait (docs/recording.md, "Clocks"). Until 2026-11-29 a
// timed wait's end was not kept: it timed out only when no thread could
// run, without the clock moving, so `lock.acquire(timeout=0.25)` returned
// after 0.0 s and a loop waiting for its deadline spun for it.
#include <cerrno>

#include "tools/recorder/guest_threads.h"

namespace ttd::rec {

namespace {

bool timed_wait_with_end(const GuestThread& t) {
  using S = GuestThread::State;
  return t.timed && t.wait_end && (t.state == S::FutexWait || t.state == S::PiWait || t.state == S::PollWait);
}

}  // namespace

void GuestThreads::sleep(uint64_t until) {
  park(GuestThread::State::Sleep, false).sleep_until = until;
}

std::optional<uint64_t> GuestThreads::first_wake_time() const {
  std::optional<uint64_t> first;
  for (const GuestThread& t : threads_) {
    std::optional<uint64_t> end;
    if (t.state == GuestThread::State::Sleep) end = t.sleep_until;
    else if (timed_wait_with_end(t)) end = t.wait_end;
    if (end && (!first || *end < *first)) first = end;
  }
  return first;
}

bool GuestThreads::wake_due(uint64_t now) {
  bool woke = false;
  for (GuestThread& t : threads_) {
    if (t.state == GuestThread::State::Sleep && t.sleep_until && *t.sleep_until <= now) {
      t.state = GuestThread::State::Runnable;
      t.wake_result = 0;  // the call, run again, returns 0 (LinuxKernel::sys_sleep)
      woke = true;
    } else if (timed_wait_with_end(t) && *t.wait_end <= now) {
      // As pick_next() ends a wait: the call, run again, answers its timeout.
      t.state = GuestThread::State::Runnable;
      t.wake_result = -ETIMEDOUT;
      t.requeue_pi_target = 0;
      woke = true;
    }
  }
  return woke;
}

}  // namespace ttd::rec
