// POSIX timers (timer_create, timer_settime, timer_gettime,
// timer_getoverrun, timer_delete) on the step clock: every clock advances
// one nanosecond per step (docs/recording.md), so a timer expires at the
// same step in every recording. A timer's signal is raised where the
// interval timers' are (ProcessTimers::expire, called by
// LinuxKernel::fire_timers: before the block in which it expires, or at
// once when every thread waits), with si_code
// SI_TIMER, si_timerid, si_overrun and si_value; SIGEV_THREAD_ID sends it
// to the named thread (glibc's SIGEV_THREAD is that, to its helper
// thread). An expiry while the signal is still queued is an overrun, as
// on Linux.
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"
#include "tools/recorder/process_timers.h"

namespace ttd::rec {

namespace {

// The clocks timer_create takes (Linux's posix_clocks with timer_create):
// the CPU-time clocks count steps like the others. -errno otherwise.
int64_t timer_clock_error(int64_t clock) {
  switch (clock) {
    case kClockRealtime:
    case kClockMonotonic:
    case kClockProcessCputime:
    case kClockThreadCputime:
    case kClockBoottime:
    case kClockTai: return 0;
    case kClockRealtimeAlarm:
    case kClockBoottimeAlarm: return ::geteuid() == 0 ? 0 : -EPERM;  // CAP_WAKE_ALARM
    case kClockMonotonicRaw:
    case kClockRealtimeCoarse:
    case kClockMonotonicCoarse: return -EOPNOTSUPP;
    // Negative ids name another process's or thread's CPU clock: not kept.
    default: return -EINVAL;
  }
}

}  // namespace

int64_t ProcessTimers::read_itimerspec(uint64_t addr, TimerSpecNs& out) {
  int64_t v[4];
  if (!k_.copy_from_user(addr, {reinterpret_cast<uint8_t*>(v), sizeof v})) return -EFAULT;
  const auto interval = timespec_ns(v[0], v[1]), value = timespec_ns(v[2], v[3]);
  if (!interval || !value) return -EINVAL;
  out.interval = *interval;
  out.value = *value;
  return 0;
}

bool ProcessTimers::put_itimerspec(uint64_t addr, uint64_t interval, uint64_t value) {
  return k_.put_u64s(addr, {interval / kNanos, interval % kNanos, value / kNanos, value % kNanos});
}

int64_t ProcessTimers::timer_create(uint64_t clock, uint64_t sevp, uint64_t id_out) {
  if (int64_t e = timer_clock_error(int64_t(int32_t(clock))); e < 0) return e;
  PosixTimerEvent ev;
  bool default_value = true;
  if (sevp) {
    // struct sigevent: sigev_value, sigev_signo, sigev_notify, then the
    // union whose first int is sigev_notify_thread_id.
    uint8_t raw[20];
    if (!k_.copy_from_user(sevp, raw)) return -EFAULT;
    int32_t signo, notify, tid;
    std::memcpy(&ev.value, raw, 8);
    std::memcpy(&signo, raw + 8, 4);
    std::memcpy(&notify, raw + 12, 4);
    std::memcpy(&tid, raw + 16, 4);
    default_value = false;
    ev.notify = notify;
    ev.signo = signo;
    // Linux's good_sigevent: SIGEV_THREAD_ID goes with SIGEV_SIGNAL, to a
    // thread of this process; a signal-sending timer needs a valid signal.
    if (notify == (kSigevSignal | kSigevThreadId)) {
      const GuestThread* t = k_.threads_.by_tid(uint64_t(uint32_t(tid)));
      if (!t || t->state == GuestThread::State::Exited) return -EINVAL;
      ev.thread = t->number;
    } else if (notify != kSigevSignal && notify != kSigevThread && notify != kSigevNone) {
      return -EINVAL;
    }
    if (notify != kSigevNone && (signo <= 0 || signo > 64)) return -EINVAL;
  }
  const int id = posix_.create(int(int32_t(clock)), ev);
  if (id < 0) return id;
  // No sigevent: SIGALRM with the timer's id as si_value.
  if (default_value) posix_.get(id)->event.value = uint64_t(id);
  if (!k_.put_u32s(id_out, {uint32_t(id)})) {
    posix_.remove(id);
    return -EFAULT;
  }
  return 0;
}

void ProcessTimers::sync_posix_timer(GuestPosixTimer& t) {
  if (!t.queued) return;
  const SigInfo* p = k_.signals_.pending_info(t.event.thread, t.event.signo);
  if (p && p->code == SigInfo::kTimer && p->pid == uint32_t(t.id)) return;  // still queued
  t.queued = false;
  t.overrun_last = t.overrun;
  t.overrun = 0;
}

bool ProcessTimers::expire_posix_timers(uint64_t now) {
  bool raised = false;
  for (auto& [id, t] : posix_.all()) {
    if (t.event.notify == kSigevNone || !t.timer.armed() || t.timer.expiry > now) continue;
    const uint64_t n = t.timer.expire(now);
    sync_posix_timer(t);
    if (t.queued) {
      // Linux queues one signal per timer: the rest are overruns, told in
      // the queued signal's si_overrun.
      t.overrun = GuestPosixTimers::add_overrun(t.overrun, n);
      if (SigInfo* p = k_.signals_.pending_info(t.event.thread, t.event.signo)) p->uid = uint32_t(t.overrun);
      continue;
    }
    // A thread-directed timer whose thread has exited sends nothing.
    if (const GuestThread* th = t.event.thread ? k_.threads_.by_number(t.event.thread) : nullptr;
        th && th->state == GuestThread::State::Exited)
      continue;
    t.overrun = GuestPosixTimers::add_overrun(0, n - 1);
    SigInfo info;
    info.signo = t.event.signo;
    info.code = SigInfo::kTimer;
    info.pid = uint32_t(id);
    info.uid = uint32_t(t.overrun);
    info.value = t.event.value;
    if (t.event.thread) k_.signals_.raise_thread(t.event.thread, info);
    else k_.signals_.raise_process(info);
    t.queued = true;
    raised = true;
  }
  return raised;
}

int64_t ProcessTimers::timer_gettime(uint64_t id, uint64_t out, uint64_t now) {
  GuestPosixTimer* t = posix_.get(int(int32_t(id)));
  if (!t) return -EINVAL;
  // SIGEV_NONE timers are not fired: they move on when asked (Linux's
  // common_timer_get forwards them too).
  if (t->event.notify == kSigevNone) t->overrun = GuestPosixTimers::add_overrun(t->overrun, t->timer.expire(now));
  uint64_t value = t->timer.left(now);
  // Due but not fired yet (the block it expires in has not started):
  // Linux reports 1 ns for a timer whose signal is on its way.
  if (t->timer.armed() && value == 0 && t->event.notify != kSigevNone) value = 1;
  return put_itimerspec(out, t->timer.interval, value) ? 0 : -EFAULT;
}

int64_t ProcessTimers::timer_settime(uint64_t id, uint64_t flags, uint64_t new_value, uint64_t old_value,
                                     uint64_t now) {
  GuestPosixTimer* t = posix_.get(int(int32_t(id)));
  if (!t) return -EINVAL;
  TimerSpecNs spec;
  if (!new_value) return -EINVAL;
  if (int64_t e = read_itimerspec(new_value, spec); e < 0) return e;
  if (old_value)
    if (int64_t e = timer_gettime(id, old_value, now); e < 0) return e;
  t->overrun_last = 0;
  if (!spec.value) {
    t->timer = {};
  } else {
    t->timer.expiry = (flags & kTimerAbstime) ? k_.step_clock().step_at(t->clock, spec.value, now) : now + spec.value;
    t->timer.interval = spec.interval;
  }
  update_due();
  return 0;
}

int64_t ProcessTimers::timer_getoverrun(uint64_t id) {
  GuestPosixTimer* t = posix_.get(int(int32_t(id)));
  if (!t) return -EINVAL;
  sync_posix_timer(*t);
  return t->overrun_last;
}

int64_t ProcessTimers::timer_delete(uint64_t id) {
  if (!posix_.remove(int(int32_t(id)))) return -EINVAL;
  update_due();
  return 0;
}

}  // namespace ttd::rec
