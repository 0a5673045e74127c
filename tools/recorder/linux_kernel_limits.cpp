// Resource limits, usage and scheduling of the process (docs/recording.md,
// "Process"): getrlimit, setrlimit and prlimit64 on the process's own
// limits (guest_rlimits.h); getrusage and times from the step clock (CPU
// time is the steps, a nanosecond each, as CLOCK_PROCESS_CPUTIME_ID);
// getpriority, setpriority and the scheduler queries on the recorder's
// host process, which runs every guest thread.
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

int64_t LinuxKernel::sys_prlimit(uint64_t resource, uint64_t new_limit, uint64_t old_limit) {
  if (resource >= uint64_t(GuestRlimits::kCount)) return -EINVAL;
  const int r = int(resource);
  GuestRlimits::Limit want;
  if (new_limit) {
    uint8_t raw[16];
    if (!copy_from_user(new_limit, raw)) return -EFAULT;
    std::memcpy(&want.cur, raw, 8);
    std::memcpy(&want.max, raw + 8, 8);
  }
  const GuestRlimits::Limit was = rlimits_.get(r);
  if (new_limit) {
    if (const int64_t e = rlimits_.set(r, want); e < 0) return e;
    if (r == GuestRlimits::kNofile) fds_.set_max_fds(rlimits_.max_fds());
  }
  if (old_limit && !put_u64s(old_limit, {was.cur, was.max})) return -EFAULT;
  return 0;
}

int64_t LinuxKernel::sys_priority(bool set, uint64_t which, int64_t who, int64_t prio) {
  // The guest's threads all run on the recorder's thread, so the process
  // and any of its threads are the recorder (as setuid changes the
  // recorder's ids); other pids, groups and users are the host's.
  constexpr uint64_t kPrioProcess = 0;
  if (which == kPrioProcess && (who == 0 || uint64_t(who) == pid_ || threads_.by_tid(uint64_t(who)))) who = 0;
  errno = 0;
  const long r = set ? ::syscall(SYS_setpriority, int(which), int(who), int(prio))
                     : ::syscall(SYS_getpriority, int(which), int(who));  // 20 - nice, as the kernel returns it
  return r < 0 ? -errno : r;
}

namespace {

constexpr uint64_t kTicksPerSecond = 100;  // USER_HZ
constexpr uint64_t kNanosPerTick = 1000000000 / kTicksPerSecond;

}  // namespace

int64_t LinuxKernel::sys_getrusage(int64_t who, uint64_t buf) {
  constexpr int64_t kSelf = 0, kChildren = -1, kThread = 1;
  uint64_t u[18] = {};  // struct rusage: two timevals, then 14 longs
  if (who == kChildren) {
    // The children are host processes: the host's figures for them.
    rusage r{};
    ::getrusage(RUSAGE_CHILDREN, &r);
    static_assert(sizeof r == sizeof u);
    std::memcpy(u, &r, sizeof u);
  } else if (who == kSelf || who == kThread) {
    // Every thread's steps (as CLOCK_PROCESS_CPUTIME_ID counts them); no
    // system time; the largest size as /proc/self/status's VmHWM (every
    // mapped page counted resident).
    const uint64_t cpu = now_ > clock_ahead_ ? now_ - clock_ahead_ : 0;
    u[0] = cpu / 1000000000;
    u[1] = cpu % 1000000000 / 1000;
    uint64_t mapped = 0;
    for (const auto& [start, r] : mem_.regions().all()) mapped += r.size;
    u[4] = mapped / 1024;
  } else {
    return -EINVAL;
  }
  return put_u64s(buf, {u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
                        u[15], u[16], u[17]})
             ? 0
             : -EFAULT;
}

int64_t LinuxKernel::sys_times(uint64_t buf) {
  const uint64_t cpu = now_ > clock_ahead_ ? now_ - clock_ahead_ : 0;
  if (buf) {
    tms children{};
    ::times(&children);  // reaped children are host processes
    if (!put_u64s(buf, {cpu / kNanosPerTick, 0, uint64_t(children.tms_cutime), uint64_t(children.tms_cstime)}))
      return -EFAULT;
  }
  // Ticks since boot, on the virtual clock CLOCK_MONOTONIC reads.
  return int64_t((now_ + step_clock().origin(1 /*CLOCK_MONOTONIC*/)) / kNanosPerTick);
}

int64_t LinuxKernel::sys_sched_query(Sys which, int64_t arg, uint64_t buf) {
  long r = 0;
  if (which == Sys::SchedGetPriorityMax || which == Sys::SchedGetPriorityMin) {
    r = which == Sys::SchedGetPriorityMax ? ::sched_get_priority_max(int(arg)) : ::sched_get_priority_min(int(arg));
    return r < 0 ? -errno : r;
  }
  // The process and its threads are the recorder's process (sys_priority).
  if (arg < 0) return -EINVAL;
  const int pid = (arg == 0 || uint64_t(arg) == pid_ || threads_.by_tid(uint64_t(arg))) ? 0 : int(arg);
  if (which == Sys::SchedGetscheduler) {
    r = ::sched_getscheduler(pid);
    return r < 0 ? -errno : r;
  }
  sched_param p{};
  if (::sched_getparam(pid, &p) < 0) return -errno;
  return put_u32s(buf, {uint32_t(p.sched_priority)}) ? 0 : -EFAULT;
}

}  // namespace ttd::rec
