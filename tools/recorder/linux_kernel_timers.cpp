// alarm, setitimer and getitimer on the virtual clock (one nanosecond per
// step, plus the host waits: host_wait_clock.h, docs/recording.md):
// ITIMER_REAL sends SIGALRM, ITIMER_VIRTUAL SIGVTALRM, ITIMER_PROF
// SIGPROF, so a timer fires at the same step in every recording of a
// program that does not wait on the host. ITIMER_VIRTUAL and _PROF count
// the process's CPU time, the steps alone: a sleep or a wait does not
// bring them on, as natively. A periodic one moves on by
// whole intervals (StepTimer, as Linux's hrtimer_forward), so it does not
// drift. When every thread waits on the recorder's objects, the earliest
// timer fires at once and the clock jumps to its due time: waiting takes
// no steps. POSIX timers (linux_kernel_posix_timers.cpp) and timerfds
// (linux_kernel_timerfd.cpp) expire at the same point.
#include <cerrno>

#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

constexpr uint64_t kMicro = 1000;
constexpr int kTimerSignal[3] = {kSigAlrm, 26 /*SIGVTALRM*/, 27 /*SIGPROF*/};

}  // namespace

int64_t LinuxKernel::sys_alarm(uint64_t seconds, uint64_t steps) {
  StepTimer& t = timers_[0];
  uint64_t left = t.expiry > steps ? t.expiry - steps : 0;
  // Linux rounds what is left to the nearest second, and says 1 rather than 0.
  int64_t r = t.expiry ? int64_t((left + kNanos / 2) / kNanos) : 0;
  if (t.expiry && r == 0) r = 1;
  t = {};
  if (seconds) t.expiry = steps + uint32_t(seconds) * kNanos;
  update_timer_due();
  return r;
}

int64_t LinuxKernel::sys_setitimer(uint64_t which, uint64_t value, uint64_t old, uint64_t steps) {
  if (which > 2) return -EINVAL;
  StepTimer& t = timers_[which];
  // ITIMER_VIRTUAL and _PROF count CPU time: a wait does not bring them on.
  if (which != 0) steps = steps > clock_ahead_ ? steps - clock_ahead_ : 0;
  uint64_t nv[4] = {};  // it_interval {sec, usec}, it_value {sec, usec}
  if (value && !copy_from_user(value, {reinterpret_cast<uint8_t*>(nv), sizeof nv})) return -EFAULT;
  if (value && (nv[1] >= 1000000 || nv[3] >= 1000000)) return -EINVAL;
  if (old) {
    const uint64_t left = t.expiry > steps ? t.expiry - steps : (t.expiry ? 1 : 0);
    const uint64_t left_us = (left + kMicro - 1) / kMicro, interval_us = t.interval / kMicro;
    if (!put_u64s(old, {interval_us / 1000000, interval_us % 1000000, left_us / 1000000, left_us % 1000000}))
      return -EFAULT;
  }
  if (!value) return 0;
  t.interval = nv[0] * kNanos + nv[1] * kMicro;
  const uint64_t v = nv[2] * kNanos + nv[3] * kMicro;
  t.expiry = v ? steps + v : 0;
  update_timer_due();
  return 0;
}

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
  for (int i = 0; i < 10000 && timer_due_ < until; ++i) {
    advance_clock_to(std::max(now_, timer_due_));
    fire_due(now_);
    if (!(signals_.deliverable(me) & ~ignored_set())) continue;
    const uint64_t left = until > now_ ? until - now_ : 0;
    if (rem && !(flags & 1) && !put_u64s(rem, {left / kNanos, left % kNanos})) return -EFAULT;
    return -EINTR;
  }
  advance_clock_to(std::max(now_, until));
  return 0;
}

void LinuxKernel::update_timer_due() {
  timer_due_ = posix_timers_.due();
  if (timers_[0].expiry) timer_due_ = std::min(timer_due_, timers_[0].expiry);
  cpu_timer_due_ = ~uint64_t(0);
  for (int i = 1; i < 3; ++i)
    if (timers_[i].expiry) cpu_timer_due_ = std::min(cpu_timer_due_, timers_[i].expiry);
  // Timerfds whose last descriptor was closed are forgotten here.
  std::erase_if(timerfds_, [](const std::weak_ptr<GuestTimerfd>& w) { return w.expired(); });
  for (const auto& w : timerfds_)
    if (auto t = w.lock()) timer_due_ = std::min(timer_due_, t->due());
  // A parked sleep's or timed wait's end is due like a timer (guest_sleeps.cpp).
  if (const auto end = threads_.first_wake_time()) timer_due_ = std::min(timer_due_, *end);
  sync_timer_due_step();
}

void LinuxKernel::sync_timer_due_step() {
  timer_due_step_ = timer_due_ == ~uint64_t(0) ? timer_due_ : timer_due_ > clock_ahead_ ? timer_due_ - clock_ahead_ : 0;
  timer_due_step_ = std::min(timer_due_step_, cpu_timer_due_);
}

void LinuxKernel::forget_timers_for_fork() {
  for (StepTimer& t : timers_) t = {};
  posix_timers_ = GuestPosixTimers();
  update_timer_due();
}

bool LinuxKernel::any_runnable() {
  for (uint32_t n = 1; n <= threads_.count(); ++n)
    if (const GuestThread* t = threads_.by_number(n); t && t->state == GuestThread::State::Runnable) return true;
  return false;
}

bool LinuxKernel::fire_timers(uint64_t steps, bool skip_ahead, uint64_t until) {
  steps += clock_ahead_;  // the virtual clock
  now_ = std::max(now_, steps);
  if (!skip_ahead) return (timer_due_ != ~uint64_t(0) || cpu_timer_due_ != ~uint64_t(0)) && fire_due(steps);
  // A wait that ended otherwise (a futex wake, a ready pipe, a signal)
  // leaves its end in timer_due_ until the next update: the clock must not
  // jump to it.
  update_timer_due();
  if (timer_due_ == ~uint64_t(0)) return false;
  // Every thread waits: the timers fire in expiry order until one wakes a
  // thread (a timerfd nobody reads, a signal every thread blocks do not).
  // The bound stops a periodic timer that wakes nobody from spinning here.
  for (int i = 0; i < 10000 && timer_due_ != ~uint64_t(0) && timer_due_ <= until; ++i) {
    // The clock jumps to the due time, as it would have read natively.
    advance_clock_to(timer_due_);
    fire_due(std::max(steps, timer_due_));
    if (any_runnable()) return true;
  }
  return false;
}

bool LinuxKernel::fire_due(uint64_t steps) {
  bool fired = false;
  const uint64_t cpu = steps > clock_ahead_ ? steps - clock_ahead_ : 0;
  for (int i = 0; i < 3; ++i) {
    // One signal however many periods passed (Linux counts the overrun);
    // the next expiry is a whole number of intervals on.
    if (!timers_[i].expire(i == 0 ? steps : cpu)) continue;
    SigInfo info;
    info.signo = kTimerSignal[i];
    info.code = SigInfo::kKernel;
    signals_.raise_process(info);
    fired = true;
  }
  fired |= fire_posix_timers(steps);
  const bool ticked = fire_timerfds(steps);
  const bool slept = threads_.wake_due(steps);  // parked sleeps and timed waits that reached their end
  update_timer_due();
  if (fired) interrupt_parked();
  if (ticked) wake_io_waiters();
  return fired || ticked || slept;
}

}  // namespace ttd::rec
