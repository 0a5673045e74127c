// When the process's timers (process_timers.h: alarm and setitimer's,
// POSIX timers, timerfds) fire on the virtual clock (one nanosecond per
// step, plus the host waits: host_wait_clock.h, docs/recording.md):
// before the block in which one is due, so a timer fires at the same step
// in every recording of a program that does not wait on the host; and
// when every thread waits on the recorder's objects, the earliest fires at
// once and the clock jumps to its due time: waiting takes no steps. A
// sleep of a thread alone jumps the clock the same way
// (sys_clock_nanosleep). What fires raises signals and wakes the threads
// that take them or read the timerfds.
#include <cerrno>

#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

int64_t LinuxKernel::sys_clock_nanosleep(uint64_t clock, uint64_t flags, uint64_t req, uint64_t rem, uint64_t steps) {
  uint64_t until = 0;
  if (const int64_t e = sleep_end(clock, flags, req, steps, until)) return e;
  // One thread alone (with several, sleep_blocks parked the thread until
  // the clock reached the end, linux_kernel_sleeps.cpp): the sleep takes
  // no wall time and no steps: the clock jumps to its end,
  // so a program that sleeps and reads the time sees it pass. Timers due
  // before then fire on the way, at their due times; one whose signal this
  // thread takes (a handler, or a default action that ends the process)
  // ends the sleep there, as Linux's -EINTR (a blocked or ignored one
  // does not). The bound stops a fast periodic timer from spinning here.
  const uint32_t me = threads_.current().number;
  for (int i = 0; i < 10000 && timers_.due() < until; ++i) {
    advance_clock_to(std::max(now_, timers_.due()));
    fire_due(now_);
    if (!(signals_.deliverable(me) & ~ignored_set())) continue;
    const uint64_t left = until > now_ ? until - now_ : 0;
    if (rem && !(flags & 1) && !put_u64s(rem, {left / kNanos, left % kNanos})) return -EFAULT;
    return -EINTR;
  }
  advance_clock_to(std::max(now_, until));
  return 0;
}

void LinuxKernel::update_timer_due() { timers_.update_due(clock_ahead_, threads_.first_wake_time()); }

StepClock LinuxKernel::step_clock() const {
  return StepClock{cfg_.epoch_seconds * kNanos + cfg_.epoch_nanoseconds};
}

bool LinuxKernel::any_runnable() {
  for (uint32_t n = 1; n <= threads_.count(); ++n)
    if (const GuestThread* t = threads_.by_number(n); t && t->state == GuestThread::State::Runnable) return true;
  return false;
}

bool LinuxKernel::fire_timers(uint64_t steps, bool skip_ahead, uint64_t until) {
  steps += clock_ahead_;  // the virtual clock
  now_ = std::max(now_, steps);
  if (!skip_ahead) return timers_.any_due_time() && fire_due(steps);
  // A wait that ended otherwise (a futex wake, a ready pipe, a signal)
  // leaves its end in the due time until the next update: the clock must not
  // jump to it.
  update_timer_due();
  if (timers_.due() == ~uint64_t(0)) return false;
  // Every thread waits: the timers fire in expiry order until one wakes a
  // thread (a timerfd nobody reads, a signal every thread blocks do not).
  // The bound stops a periodic timer that wakes nobody from spinning here.
  for (int i = 0; i < 10000 && timers_.due() != ~uint64_t(0) && timers_.due() <= until; ++i) {
    // The clock jumps to the due time, as it would have read natively.
    advance_clock_to(timers_.due());
    fire_due(std::max(steps, timers_.due()));
    if (any_runnable()) return true;
  }
  return false;
}

bool LinuxKernel::fire_due(uint64_t steps) {
  const uint64_t cpu = steps > clock_ahead_ ? steps - clock_ahead_ : 0;
  const ProcessTimers::Expired x = timers_.expire(steps, cpu);
  const bool slept = threads_.wake_due(steps);  // parked sleeps and timed waits that reached their end
  update_timer_due();
  if (x.signal) interrupt_parked();
  if (x.ticked) wake_io_waiters();
  return x.signal || x.ticked || slept;
}

}  // namespace ttd::rec
