// A one-shot or periodic expiry on the recorder's step clock (one
// nanosecond per step, docs/recording.md), counted as Linux's hrtimer-based
// timers count it: a periodic timer that finds several periods gone moves
// on by whole intervals and reports them all (hrtimer_forward), so
// expirations are counted, never lost. Shared by POSIX timers
// (guest_posix_timers.h) and timerfds (guest_timerfd.h).
#pragma once
#include <cstdint>
#include <optional>

namespace ttd::rec {

// The clocks' ids (include/uapi/linux/time.h), the same on x86-64 and AArch64.
enum : int {
  kClockRealtime = 0, kClockMonotonic = 1, kClockProcessCputime = 2, kClockThreadCputime = 3,
  kClockMonotonicRaw = 4, kClockRealtimeCoarse = 5, kClockMonotonicCoarse = 6, kClockBoottime = 7,
  kClockRealtimeAlarm = 8, kClockBoottimeAlarm = 9, kClockTai = 11,
};

struct StepTimer {
  uint64_t expiry = 0;    // step of the next expiry; 0: disarmed
  uint64_t interval = 0;  // steps between expiries; 0: one-shot

  bool armed() const { return expiry != 0; }
  // Expirations due at `now` (0 if none); the timer moves to its next
  // expiry after `now`, or disarms when it is one-shot.
  uint64_t expire(uint64_t now) {
    if (!expiry || now < expiry) return 0;
    if (!interval) {
      expiry = 0;
      return 1;
    }
    const uint64_t n = 1 + (now - expiry) / interval;
    expiry += n * interval;
    return n;
  }
  // Steps until the next expiry (0 when disarmed or due).
  uint64_t left(uint64_t now) const { return expiry > now ? expiry - now : 0; }
};

// The step clock seen through a guest clock: CLOCK_REALTIME (and TAI,
// _ALARM) counts from the recording's epoch, the others from the first
// step; every clock, the CPU-time ones included, advances one nanosecond
// per step.
struct StepClock {
  uint64_t epoch_ns = 0;  // CLOCK_REALTIME at step 0
  static bool realtime(int clock) {
    return clock == kClockRealtime || clock == kClockRealtimeAlarm || clock == kClockTai ||
           clock == kClockRealtimeCoarse;
  }
  // Linux's clock ids: 0 to 11 but 10 (CLOCK_SGI_CYCLE, gone); the
  // negative ids of other processes' and threads' CPU clocks are not kept.
  static bool known(uint64_t clock) { return clock <= kClockTai && clock != 10; }
  uint64_t origin(int clock) const { return realtime(clock) ? epoch_ns : 0; }
  // The step at which clock `clock` reads `ns` (an absolute timer value);
  // a time already past is due at `now`. Never 0 (0 disarms).
  uint64_t step_at(int clock, uint64_t ns, uint64_t now) const {
    const uint64_t o = origin(clock);
    const uint64_t s = ns > o ? ns - o : 0;
    return s > now ? s : (now ? now : 1);
  }
};

// struct itimerspec / timespec as nanoseconds: {interval, value}; nullopt
// for a field out of range (tv_nsec >= 1e9 or a negative time: EINVAL).
struct TimerSpecNs {
  uint64_t interval = 0, value = 0;
};
inline std::optional<uint64_t> timespec_ns(int64_t sec, int64_t nsec) {
  if (sec < 0 || nsec < 0 || nsec >= 1000000000) return std::nullopt;
  constexpr uint64_t kMaxSec = ~uint64_t(0) / 1000000000 - 1;
  if (uint64_t(sec) > kMaxSec) return ~uint64_t(0) / 2;  // far enough: never in a recording
  return uint64_t(sec) * 1000000000 + uint64_t(nsec);
}

}  // namespace ttd::rec
