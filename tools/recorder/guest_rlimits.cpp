#include "tools/recorder/guest_rlimits.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>

namespace ttd::rec {

namespace {

// fs.nr_open: the most descriptors a process may have (Linux's default).
uint64_t nr_open() {
  static const uint64_t n = [] {
    uint64_t v = 1 << 20;
    std::ifstream f("/proc/sys/fs/nr_open");
    f >> v;
    return v ? v : uint64_t(1) << 20;
  }();
  return n;
}

bool can_raise_limits() {
  constexpr int kCapSysResource = 24;
  struct {
    uint32_t version = 0x20080522;  // _LINUX_CAPABILITY_VERSION_3
    int pid = 0;
  } head;
  struct {
    uint32_t effective, permitted, inheritable;
  } data[2] = {};
  if (::syscall(SYS_capget, &head, data) != 0) return false;
  return (data[0].effective >> kCapSysResource) & 1;
}

}  // namespace

GuestRlimits GuestRlimits::of_host() {
  GuestRlimits g;
  for (int r = 0; r < kCount; ++r) {
    rlimit l{};
    if (::getrlimit(r, &l) == 0) g.limits_[r] = {uint64_t(l.rlim_cur), uint64_t(l.rlim_max)};
  }
  return g;
}

int64_t GuestRlimits::set(int resource, Limit l) {
  if (resource < 0 || resource >= kCount) return -EINVAL;
  if (l.cur > l.max) return -EINVAL;
  if (resource == kNofile && l.max > nr_open()) return -EPERM;
  // Raising the hard limit needs CAP_SYS_RESOURCE: the recorder's, which
  // runs with the program's ids (root in a container may lack it).
  if (l.max > limits_[resource].max && !can_raise_limits()) return -EPERM;
  limits_[resource] = l;
  changed_[resource] = true;
  return 0;
}

void GuestRlimits::lower_reported(int resource, uint64_t cur) {
  limits_[resource].cur = std::min(limits_[resource].cur, cur);
}

int GuestRlimits::max_fds() const {
  return int(std::min<uint64_t>(limits_[kNofile].cur, nr_open()));
}

}  // namespace ttd::rec
