// How a wait on the host moves the virtual clock (docs/recording.md,
// "Clocks"). The clock counts one nanosecond per step, plus the time the
// program spent waiting for something outside it (an unrecorded child, a
// pipe or socket whose other end is elsewhere): such a wait lasts at most
// until the next timer of the process falls due on the virtual clock, so
// the timer fires when it would natively, and the clock then reads the
// due time; a wait that ends first moves the clock on by its wall time.
// Pure arithmetic on nanoseconds, so it is tested alone.
#pragma once
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <optional>

namespace ttd::rec {

constexpr uint64_t kNoTimer = ~uint64_t(0);

struct HostWaitBound {
  std::optional<uint64_t> ns;  // longest wall wait; nullopt: until the host answers
  bool timer = false;          // the bound is the next timer's due time (else the call's own timeout)
};

// The bound of a host wait starting at virtual time `now` with the next
// timer due at `due` (kNoTimer: none) and the call's own timeout `own`.
// A timer due already gives 0: poll once, then fire it.
inline HostWaitBound host_wait_bound(uint64_t now, uint64_t due, std::optional<uint64_t> own = std::nullopt) {
  HostWaitBound b;
  if (due != kNoTimer) {
    b.ns = due > now ? due - now : 0;
    b.timer = true;
  }
  if (own && (!b.ns || *own < *b.ns)) {
    b.ns = own;
    b.timer = false;
  }
  return b;
}

// The virtual clock after a host wait that started at `now` and took
// `waited` ns of wall time. When the timer bound passed (`timer_passed`)
// it reads the due time exactly, so the timer fires there in every
// recording; a wait that ended first (ready, a signal, its own timeout)
// adds the wall time, but never reaches past a timer that did not fire
// yet (it fires at the clock's next look). Never backwards.
inline uint64_t clock_after_host_wait(uint64_t now, uint64_t due, uint64_t waited, bool timer_passed) {
  if (timer_passed) return std::max(now, due);
  const uint64_t t = waited > kNoTimer - now ? kNoTimer - 1 : now + waited;
  return due == kNoTimer ? t : std::max(now, std::min(t, due));
}

inline timespec to_timespec(uint64_t ns) {
  constexpr uint64_t kMaxSec = uint64_t(1) << 40;  // far enough; keeps tv_sec in range
  const uint64_t s = std::min(ns / 1000000000, kMaxSec);
  return timespec{time_t(s), long(ns % 1000000000)};
}

}  // namespace ttd::rec
