// The recorded process's timers on the virtual clock (docs/recording.md,
// "Timers"): the interval timers of alarm and setitimer (ITIMER_REAL,
// _VIRTUAL, _PROF), the POSIX timers (timer_create ... timer_delete) and
// the timerfds, their syscalls, and the step at which the next of them is
// due, which the recorder's hot loop compares with the steps on every
// block (LinuxKernel::timer_due: a load of a member, so kept here as one).
//
// Contract. The virtual clock is the kernel's (LinuxKernel::now_, the
// steps plus clock_ahead, the host waits so far); everything here counts
// its nanoseconds, except ITIMER_VIRTUAL and _PROF, which count the
// process's CPU time (the steps alone). The kernel calls update_due()
// after anything that may move a due time (a timer armed or fired, a
// parked sleep or timed wait begun or ended: their ends are due like
// timers, GuestThreads::first_wake_time) and sync_due_step() when the
// clock jumps ahead; it calls expire() once the clock passes due() or the
// CPU time cpu_due(). The syscalls read and write guest memory, the
// descriptor table, the threads and the signals through the kernel they
// belong to (a LinuxKernel this class is a friend of); the due-time
// bookkeeping touches only this object.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "tools/recorder/guest_posix_timers.h"
#include "tools/recorder/guest_timerfd.h"
#include "tools/recorder/step_timer.h"
#include "tools/recorder/syscall_table.h"

namespace ttd::rec {

class LinuxKernel;

class ProcessTimers {
 public:
  explicit ProcessTimers(LinuxKernel& kernel) : k_(kernel) {}
  ProcessTimers(const ProcessTimers&) = delete;
  ProcessTimers& operator=(const ProcessTimers&) = delete;

  // alarm, setitimer, getitimer (process_timers.cpp), timer_create ...
  // timer_delete (process_timers_posix.cpp), timerfd_create, _settime,
  // _gettime (process_timers_timerfd.cpp); `now` is the virtual clock.
  // The answer; -ENOSYS for another call.
  int64_t call(Sys sys, const uint64_t a[6], uint64_t now);

  // The next expiry of a timer that counts the virtual clock (ITIMER_REAL,
  // the POSIX timers, the timerfds) or of a parked sleep or timed wait, in
  // the clock's ns; of ITIMER_VIRTUAL and _PROF, in CPU time (steps); the
  // earlier of both as steps (what LinuxKernel::timer_due returns). ~0: none.
  uint64_t due() const { return due_; }
  uint64_t cpu_due() const { return cpu_due_; }
  uint64_t due_step() const { return due_step_; }
  bool any_due_time() const { return due_ != ~uint64_t(0) || cpu_due_ != ~uint64_t(0); }
  // A timer is due with the clock at `now` and the CPU time at `cpu`.
  bool due_at(uint64_t now, uint64_t cpu) const { return now >= due_ || cpu >= cpu_due_; }
  // Recomputes the due times (`first_wake`: the earliest end of a parked
  // sleep or timed wait) and forgets timerfds whose last descriptor closed.
  void update_due(uint64_t clock_ahead, std::optional<uint64_t> first_wake);
  // due_step() again after the clock jumped (`clock_ahead` grew).
  void sync_due_step(uint64_t clock_ahead);

  // What is due at clock `now` (CPU time `cpu`) expires: the interval
  // timers' and the POSIX timers' signals are raised (one per timer, the
  // rest counted as overruns), the timerfds count their expirations.
  // The caller then calls update_due().
  struct Expired {
    bool signal = false;  // a signal was raised
    bool ticked = false;  // a timerfd became readable
  };
  Expired expire(uint64_t now, uint64_t cpu);

  // A fork's child has none of its parent's interval or POSIX timers.
  void forget_for_fork();
  // alarm and setitimer's timers survive execve (ExecCarry::itimers).
  void save_itimers(StepTimer (&out)[3]) const;
  void restore_itimers(const StepTimer (&in)[3]);

 private:
  int64_t alarm(uint64_t seconds, uint64_t now);
  int64_t setitimer(uint64_t which, uint64_t value, uint64_t old, uint64_t now);
  // process_timers_posix.cpp.
  int64_t timer_create(uint64_t clock, uint64_t sevp, uint64_t id_out);
  int64_t timer_settime(uint64_t id, uint64_t flags, uint64_t new_value, uint64_t old_value, uint64_t now);
  int64_t timer_gettime(uint64_t id, uint64_t out, uint64_t now);
  int64_t timer_getoverrun(uint64_t id);
  int64_t timer_delete(uint64_t id);
  bool expire_posix_timers(uint64_t now);
  // A queued timer signal that is no longer pending was delivered: its
  // overrun becomes timer_getoverrun's.
  void sync_posix_timer(GuestPosixTimer& t);
  // struct itimerspec in guest memory: 0, -EFAULT or -EINVAL.
  int64_t read_itimerspec(uint64_t addr, TimerSpecNs& out);
  bool put_itimerspec(uint64_t addr, uint64_t interval, uint64_t value);
  // process_timers_timerfd.cpp.
  int64_t timerfd_create(uint64_t clock, uint64_t flags);
  int64_t timerfd_settime(int fd, uint64_t flags, uint64_t new_value, uint64_t old_value, uint64_t now);
  int64_t timerfd_gettime(int fd, uint64_t out, uint64_t now);
  bool expire_timerfds(uint64_t now);
  void update_due() { update_due(clock_ahead(), first_wake()); }
  uint64_t clock_ahead() const;
  std::optional<uint64_t> first_wake() const;

  LinuxKernel& k_;
  // ITIMER_REAL, _VIRTUAL, _PROF: periodic ones move on by whole
  // intervals, as Linux's hrtimer_forward. ITIMER_REAL counts the virtual
  // clock; _VIRTUAL and _PROF the process's CPU time, which is the steps
  // (no jumps, no host waits).
  StepTimer itimers_[3];
  GuestPosixTimers posix_;
  std::vector<std::weak_ptr<GuestTimerfd>> timerfds_;  // every timerfd made, while one of its fds is open
  uint64_t due_ = ~uint64_t(0);       // virtual clock ns (timers that count waiting)
  uint64_t cpu_due_ = ~uint64_t(0);   // steps: the earliest of ITIMER_VIRTUAL and _PROF
  uint64_t due_step_ = ~uint64_t(0);  // the earlier of both as steps (LinuxKernel::timer_due)
};

}  // namespace ttd::rec
