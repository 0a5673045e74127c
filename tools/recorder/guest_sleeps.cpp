// GuestThreads' sleeps: a thread in nanosleep / clock_nanosleep is parked
// until the virtual clock reaches its end, so the other threads run
// meanwhile (their steps move the clock), as natively. The end is a due
// time like a timer's (LinuxKernel::update_timer_due takes the earliest):
// it fires when the clock passes it, when every thread waits (the clock
// jumps there) or bounds a host wait (docs/recording.md, "Clocks").
#include "tools/recorder/guest_threads.h"

namespace ttd::rec {

void GuestThreads::sleep(uint64_t until) {
  park(GuestThread::State::Sleep, false).sleep_until = until;
}

std::optional<uint64_t> GuestThreads::first_sleep_end() const {
  std::optional<uint64_t> first;
  for (const GuestThread& t : threads_)
    if (t.state == GuestThread::State::Sleep && t.sleep_until && (!first || *t.sleep_until < *first))
      first = t.sleep_until;
  return first;
}

bool GuestThreads::wake_sleepers(uint64_t now) {
  bool woke = false;
  for (GuestThread& t : threads_) {
    if (t.state != GuestThread::State::Sleep || !t.sleep_until || *t.sleep_until > now) continue;
    t.state = GuestThread::State::Runnable;
    t.wake_result = 0;  // the call, run again, returns 0 (LinuxKernel::sys_sleep)
    woke = true;
  }
  return woke;
}

}  // namespace ttd::rec
