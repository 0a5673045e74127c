// Resource limits and scheduling priority of the process
// (docs/recording.md, "Process"): getrlimit, setrlimit and prlimit64 on the
// process's own limits (guest_rlimits.h), getpriority and setpriority on
// the recorder's host process, which runs every guest thread.
#include <sys/syscall.h>
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

}  // namespace ttd::rec
