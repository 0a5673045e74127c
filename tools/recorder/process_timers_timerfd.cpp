// timerfd_create, timerfd_settime and timerfd_gettime: a timer the
// recorder keeps on the step clock (guest_timerfd.h) whose unread
// expirations are an eventfd counter, so a read returns the 8-byte count
// (EAGAIN at 0 when non-blocking), a blocking read parks the thread until
// the timer expires (at once, in virtual time, when every thread waits),
// and poll, select and epoll see it readable, as they see an eventfd.
// What departs from Linux: the clocks are never set, so
// TFD_TIMER_CANCEL_ON_SET is accepted and a read never fails with
// ECANCELED; TFD_IOC_SET_TICKS is answered ENOTTY (as any ioctl on a
// descriptor the recorder keeps).
#include <unistd.h>

#include <cerrno>

#include "tools/recorder/linux_kernel.h"
#include "tools/recorder/process_timers.h"

namespace ttd::rec {

namespace {

// The same values on x86-64 and AArch64 (include/uapi/linux/timerfd.h).
constexpr uint64_t kTfdNonblock = 04000, kTfdCloexec = 02000000;
constexpr uint64_t kTfdTimerAbstime = 1, kTfdTimerCancelOnSet = 2;

}  // namespace

int64_t ProcessTimers::timerfd_create(uint64_t clock, uint64_t flags) {
  if (flags & ~(kTfdNonblock | kTfdCloexec)) return -EINVAL;
  const int c = int(int32_t(clock));
  if (c == kClockRealtimeAlarm || c == kClockBoottimeAlarm) {
    if (::geteuid() != 0) return -EPERM;  // CAP_WAKE_ALARM
  } else if (c != kClockRealtime && c != kClockMonotonic && c != kClockBoottime) {
    return -EINVAL;
  }
  GuestFd f;
  f.kind = GuestFd::Kind::Timerfd;
  f.cloexec = flags & kTfdCloexec;
  f.path = "anon_inode:[timerfd]";
  f.timerfd = std::make_shared<GuestTimerfd>(c, flags & kTfdNonblock);
  f.eventfd = f.timerfd->ticks();
  timerfds_.push_back(f.timerfd);
  return k_.fds_.add(std::move(f));
}

int64_t ProcessTimers::timerfd_gettime(int fd, uint64_t out, uint64_t now) {
  const GuestFd* f = k_.fds_.get(fd);
  if (!f) return -EBADF;
  if (f->kind != GuestFd::Kind::Timerfd) return -EINVAL;
  const StepTimer& t = f->timerfd->timer();
  return put_itimerspec(out, t.interval, t.left(now)) ? 0 : -EFAULT;
}

int64_t ProcessTimers::timerfd_settime(int fd, uint64_t flags, uint64_t new_value, uint64_t old_value,
                                       uint64_t now) {
  if (flags & ~(kTfdTimerAbstime | kTfdTimerCancelOnSet)) return -EINVAL;
  const GuestFd* f = k_.fds_.get(fd);
  if (!f) return -EBADF;
  if (f->kind != GuestFd::Kind::Timerfd) return -EINVAL;
  TimerSpecNs spec;
  if (int64_t e = read_itimerspec(new_value, spec); e < 0) return e;
  if (old_value)
    if (int64_t e = timerfd_gettime(fd, old_value, now); e < 0) return e;
  GuestTimerfd& t = *f->timerfd;
  uint64_t expiry = 0;
  if (spec.value)
    expiry = (flags & kTfdTimerAbstime) ? k_.step_clock().step_at(t.clock(), spec.value, now) : now + spec.value;
  t.arm(expiry, spec.interval);
  update_due();
  return 0;
}

bool ProcessTimers::expire_timerfds(uint64_t now) {
  bool ticked = false;
  for (const auto& w : timerfds_)
    if (auto t = w.lock()) ticked |= t->expire(now);
  return ticked;
}

}  // namespace ttd::rec
