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
// no steps (LinuxKernel::fire_timers, linux_kernel_timers.cpp). POSIX
// timers (process_timers_posix.cpp) and timerfds
// (process_timers_timerfd.cpp) expire at the same point. Also the due
// times of them all, and the dispatch of the timer syscalls.
#include "tools/recorder/process_timers.h"

#include <cerrno>

#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

constexpr uint64_t kMicro = 1000;
constexpr int kTimerSignal[3] = {kSigAlrm, 26 /*SIGVTALRM*/, 27 /*SIGPROF*/};

}  // namespace

int64_t ProcessTimers::call(Sys sys, const uint64_t a[6], uint64_t now) {
  const int fd = int(int32_t(a[0]));
  switch (sys) {
    case Sys::Alarm: return alarm(a[0], now);
    case Sys::Setitimer: return setitimer(a[0], a[1], a[2], now);
    case Sys::Getitimer: return setitimer(a[0], 0, a[1], now);
    case Sys::TimerCreate: return timer_create(a[0], a[1], a[2]);
    case Sys::TimerSettime: return timer_settime(a[0], a[1], a[2], a[3], now);
    case Sys::TimerGettime: return timer_gettime(a[0], a[1], now);
    case Sys::TimerGetoverrun: return timer_getoverrun(a[0]);
    case Sys::TimerDelete: return timer_delete(a[0]);
    case Sys::TimerfdCreate: return timerfd_create(a[0], a[1]);
    case Sys::TimerfdSettime: return timerfd_settime(fd, a[1], a[2], a[3], now);
    case Sys::TimerfdGettime: return timerfd_gettime(fd, a[1], now);
    default: return -ENOSYS;
  }
}

uint64_t ProcessTimers::clock_ahead() const { return k_.clock_ahead_; }

std::optional<uint64_t> ProcessTimers::first_wake() const { return k_.threads_.first_wake_time(); }

int64_t ProcessTimers::alarm(uint64_t seconds, uint64_t now) {
  StepTimer& t = itimers_[0];
  uint64_t left = t.expiry > now ? t.expiry - now : 0;
  // Linux rounds what is left to the nearest second, and says 1 rather than 0.
  int64_t r = t.expiry ? int64_t((left + kNanos / 2) / kNanos) : 0;
  if (t.expiry && r == 0) r = 1;
  t = {};
  if (seconds) t.expiry = now + uint32_t(seconds) * kNanos;
  update_due();
  return r;
}

int64_t ProcessTimers::setitimer(uint64_t which, uint64_t value, uint64_t old, uint64_t now) {
  if (which > 2) return -EINVAL;
  StepTimer& t = itimers_[which];
  // ITIMER_VIRTUAL and _PROF count CPU time: a wait does not bring them on.
  const uint64_t ahead = clock_ahead();
  if (which != 0) now = now > ahead ? now - ahead : 0;
  uint64_t nv[4] = {};  // it_interval {sec, usec}, it_value {sec, usec}
  if (value && !k_.copy_from_user(value, {reinterpret_cast<uint8_t*>(nv), sizeof nv})) return -EFAULT;
  if (value && (nv[1] >= 1000000 || nv[3] >= 1000000)) return -EINVAL;
  if (old) {
    const uint64_t left = t.expiry > now ? t.expiry - now : (t.expiry ? 1 : 0);
    const uint64_t left_us = (left + kMicro - 1) / kMicro, interval_us = t.interval / kMicro;
    if (!k_.put_u64s(old, {interval_us / 1000000, interval_us % 1000000, left_us / 1000000, left_us % 1000000}))
      return -EFAULT;
  }
  if (!value) return 0;
  t.interval = nv[0] * kNanos + nv[1] * kMicro;
  const uint64_t v = nv[2] * kNanos + nv[3] * kMicro;
  t.expiry = v ? now + v : 0;
  update_due();
  return 0;
}

void ProcessTimers::update_due(uint64_t clock_ahead, std::optional<uint64_t> first_wake) {
  due_ = posix_.due();
  if (itimers_[0].expiry) due_ = std::min(due_, itimers_[0].expiry);
  cpu_due_ = ~uint64_t(0);
  for (int i = 1; i < 3; ++i)
    if (itimers_[i].expiry) cpu_due_ = std::min(cpu_due_, itimers_[i].expiry);
  // Timerfds whose last descriptor was closed are forgotten here.
  std::erase_if(timerfds_, [](const std::weak_ptr<GuestTimerfd>& w) { return w.expired(); });
  for (const auto& w : timerfds_)
    if (auto t = w.lock()) due_ = std::min(due_, t->due());
  // A parked sleep's or timed wait's end is due like a timer (guest_sleeps.cpp).
  if (first_wake) due_ = std::min(due_, *first_wake);
  sync_due_step(clock_ahead);
}

void ProcessTimers::sync_due_step(uint64_t clock_ahead) {
  due_step_ = due_ == ~uint64_t(0) ? due_ : due_ > clock_ahead ? due_ - clock_ahead : 0;
  due_step_ = std::min(due_step_, cpu_due_);
}

void ProcessTimers::forget_for_fork() {
  for (StepTimer& t : itimers_) t = {};
  posix_ = GuestPosixTimers();
  update_due();
}

void ProcessTimers::save_itimers(StepTimer (&out)[3]) const {
  std::copy(std::begin(itimers_), std::end(itimers_), std::begin(out));
}

void ProcessTimers::restore_itimers(const StepTimer (&in)[3]) {
  std::copy(std::begin(in), std::end(in), std::begin(itimers_));
}

ProcessTimers::Expired ProcessTimers::expire(uint64_t now, uint64_t cpu) {
  Expired x;
  for (int i = 0; i < 3; ++i) {
    // One signal however many periods passed (Linux counts the overrun);
    // the next expiry is a whole number of intervals on.
    if (!itimers_[i].expire(i == 0 ? now : cpu)) continue;
    SigInfo info;
    info.signo = kTimerSignal[i];
    info.code = SigInfo::kKernel;
    k_.signals_.raise_process(info);
    x.signal = true;
  }
  x.signal |= expire_posix_timers(now);
  x.ticked = expire_timerfds(now);
  return x;
}

}  // namespace ttd::rec
