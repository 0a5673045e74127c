// nanosleep and clock_nanosleep with several threads (docs/recording.md,
// "Clocks"): the sleeping thread is parked until the virtual clock reaches
// the sleep's end, so the others run meanwhile and their steps move the
// clock, as natively (a worker computes while main sleeps). The end is a
// due time like a timer's (update_timer_due): it passes while others run,
// the clock jumps to it when every thread waits, and it bounds another
// thread's host wait. A timer's signal the thread takes ends the sleep
// early with EINTR and the time left in `rem`. One thread alone keeps
// sys_clock_nanosleep's jump (linux_kernel_timers.cpp): nothing else could
// run, and its sleep ends at the same virtual time either way.
#include <cerrno>

#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

bool is_sleep(Sys sys) { return sys == Sys::Nanosleep || sys == Sys::ClockNanosleep; }

// nanosleep(req, rem) is clock_nanosleep(CLOCK_MONOTONIC, 0, req, rem).
struct SleepArgs {
  uint64_t clock, flags, req, rem;
};
SleepArgs sleep_args(Sys sys, const uint64_t a[6]) {
  if (sys == Sys::Nanosleep) return {uint64_t(kClockMonotonic), 0, a[0], a[1]};
  return {a[0], a[1], a[2], a[3]};
}

}  // namespace

int64_t LinuxKernel::sleep_end(uint64_t clock, uint64_t flags, uint64_t req, uint64_t now, uint64_t& until) {
  if (const int64_t e = check_clock(clock)) return e;
  if (clock == kClockThreadCputime) return -EINVAL;  // as Linux
  uint64_t ts[2] = {};
  if (!copy_from_user(req, {reinterpret_cast<uint8_t*>(ts), sizeof ts})) return -EFAULT;
  if (int64_t(ts[0]) < 0 || ts[1] >= kNanos) return -EINVAL;
  const uint64_t asked = ts[0] > (~uint64_t(0) - ts[1]) / kNanos ? ~uint64_t(0) : ts[0] * kNanos + ts[1];
  const uint64_t origin = step_clock().origin(int(clock));
  if (flags & kTimerAbstime)
    until = asked > origin ? asked - origin : 0;
  else
    until = asked > ~uint64_t(0) - now ? ~uint64_t(0) : now + asked;
  return 0;
}

bool LinuxKernel::sleep_blocks(Sys sys, const uint64_t a[6], uint64_t steps) {
  GuestThread& t = threads_.current();
  // One thread of the recorded process: the clock jumps to the end (the
  // call answers at once). A fork's child is not recorded: it sleeps on
  // the host (RecordingSession::wait_in_child), in real time; so does a
  // process whose children run (LinuxKernel::wait_for_host_io): they go
  // on in real time meanwhile (Python's subprocess.run(timeout=5) polls
  // its child between sleeps; until 2026-11-29 those took no time and it
  // timed out after 5 virtual seconds while `sleep 0.2` still ran).
  if (t.wake_result || (threads_.live() < 2 && !unrecorded_child_ && children_.empty())) return false;
  const SleepArgs s = sleep_args(sys, a);
  const uint64_t now = std::max(now_, steps);
  uint64_t until = 0;
  // A bad argument, or an end already past: the call answers at once.
  if (sleep_end(s.clock, s.flags, s.req, now, until) != 0 || until <= now) return false;
  threads_.sleep(until);
  update_timer_due();
  return true;
}

int64_t LinuxKernel::sys_sleep(Sys sys, const uint64_t a[6], uint64_t steps) {
  GuestThread& t = threads_.current();
  t.sleep_until.reset();
  if (t.wake_result) {  // parked, and the clock reached the end
    t.wake_result.reset();
    return 0;
  }
  const SleepArgs s = sleep_args(sys, a);
  return sys_clock_nanosleep(s.clock, s.flags, s.req, s.rem, steps);
}

void LinuxKernel::end_interrupted_sleep(Sys sys, const uint64_t a[6], SyscallOutcome& out) {
  GuestThread& t = threads_.current();
  if (!is_sleep(sys) || !t.sleep_until) return;
  const uint64_t until = *t.sleep_until;
  t.sleep_until.reset();
  const SleepArgs s = sleep_args(sys, a);
  if (!s.rem || (s.flags & kTimerAbstime)) return;
  const uint64_t left = until > now_ ? until - now_ : 0;
  if (!put_u64s(s.rem, {left / kNanos, left % kNanos})) out.ret = -EFAULT;
}

}  // namespace ttd::rec
