// A timerfd the guest made (timerfd_create), kept by the recorder on the
// step clock (step_timer.h) like an eventfd (guest_eventfd.h): the
// expirations not yet read are an eventfd counter, so reads, poll, select,
// epoll and the thread parking of a blocking read work as they do for an
// eventfd (the fd's GuestFd::eventfd is that counter). Descriptors dup'd
// from one timerfd share this object, as they share the open file.
//
// Contract: the kernel calls expire(now) whenever the step clock passes
// due() (LinuxKernel::fire_timers), so the counter is what a read returns.
#pragma once
#include <cstdint>
#include <memory>

#include "tools/recorder/guest_eventfd.h"
#include "tools/recorder/step_timer.h"

namespace ttd::rec {

class GuestTimerfd {
 public:
  GuestTimerfd(int clock, bool nonblocking)
      : clock_(clock), ticks_(std::make_shared<GuestEventfd>(0, false, nonblocking)) {}

  int clock() const { return clock_; }
  const std::shared_ptr<GuestEventfd>& ticks() const { return ticks_; }
  const StepTimer& timer() const { return timer_; }
  uint64_t due() const { return timer_.armed() ? timer_.expiry : ~uint64_t(0); }

  // timerfd_settime: the unread expirations are dropped, as Linux's
  // timerfd_setup does; expiry 0 disarms.
  void arm(uint64_t expiry, uint64_t interval) {
    uint64_t dropped = 0;
    ticks_->read(dropped);
    timer_.expiry = expiry;
    timer_.interval = expiry ? interval : 0;
  }
  // Adds the expirations due at `now` to the counter; true if any.
  bool expire(uint64_t now) {
    const uint64_t n = timer_.expire(now);
    if (n) ticks_->write(n);
    return n != 0;
  }

 private:
  int clock_;
  StepTimer timer_;
  std::shared_ptr<GuestEventfd> ticks_;
};

}  // namespace ttd::rec
