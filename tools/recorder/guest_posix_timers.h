// The guest's POSIX timers (timer_create ... timer_delete), kept on the
// step clock (step_timer.h): ids, what each notifies (a signal to the
// process or to one thread, or nothing) and the overrun count Linux keeps
// (an expiry while the timer's signal is still queued is counted, not
// queued again; si_overrun and timer_getoverrun report it).
// Signals are raised by ProcessTimers (process_timers_posix.cpp); this
// table is the bookkeeping only.
#pragma once
#include <cstdint>
#include <map>

#include "tools/recorder/step_timer.h"

namespace ttd::rec {

// struct sigevent's sigev_notify values (include/uapi/asm-generic/siginfo.h).
enum : int { kSigevSignal = 0, kSigevNone = 1, kSigevThread = 2, kSigevThreadId = 4 };

struct PosixTimerEvent {
  int notify = kSigevSignal;
  int signo = 14;          // SIGALRM when timer_create has no sigevent
  uint64_t value = 0;      // sigev_value, handed back as si_value
  uint32_t thread = 0;     // SIGEV_THREAD_ID: the thread's number; 0 = the process
};

struct GuestPosixTimer {
  int id = 0;
  int clock = 0;
  PosixTimerEvent event;
  StepTimer timer;
  int32_t overrun = 0;       // expiries merged into the queued signal
  int32_t overrun_last = 0;  // the last delivered signal's (timer_getoverrun)
  bool queued = false;       // its signal was raised and may not be delivered yet
};

class GuestPosixTimers {
 public:
  // Linux's per-process limit is RLIMIT_SIGPENDING's; this keeps ids small.
  static constexpr size_t kMaxTimers = 4096;

  // A new timer with the next id (ids are not reused, as Linux's are not
  // until they wrap); -EAGAIN when there are too many.
  int create(int clock, const PosixTimerEvent& event) {
    if (timers_.size() >= kMaxTimers) return -11;  // EAGAIN
    GuestPosixTimer t;
    t.id = next_id_++;
    t.clock = clock;
    t.event = event;
    timers_[t.id] = t;
    return t.id;
  }
  GuestPosixTimer* get(int id) {
    auto it = timers_.find(id);
    return it == timers_.end() ? nullptr : &it->second;
  }
  bool remove(int id) { return timers_.erase(id) != 0; }
  // The earliest expiry of a timer that notifies (SIGEV_NONE timers are
  // brought up to date when asked, timer_gettime); ~0 when none is armed.
  uint64_t due() const {
    uint64_t d = ~uint64_t(0);
    for (const auto& [id, t] : timers_)
      if (t.timer.armed() && t.event.notify != kSigevNone && t.timer.expiry < d) d = t.timer.expiry;
    return d;
  }
  std::map<int, GuestPosixTimer>& all() { return timers_; }
  // Adds `n` to an overrun count, saturating at INT_MAX (DELAYTIMER_MAX).
  static int32_t add_overrun(int32_t o, uint64_t n) {
    const uint64_t s = uint64_t(o) + n;
    return s > 0x7fffffffu ? 0x7fffffff : int32_t(s);
  }

 private:
  std::map<int, GuestPosixTimer> timers_;
  int next_id_ = 0;
};

}  // namespace ttd::rec
