// Test support: pins the calling thread (and the threads it starts) to one
// of its CPUs for a scope, as `taskset -c N` pins a process, and restores
// the mask after. Tests of "one CPU: no helper thread" behaviour use it.
#pragma once
#include <sched.h>

namespace ttd::test {

class OneCpuAffinity {
 public:
  OneCpuAffinity() {
    CPU_ZERO(&saved_);
    if (sched_getaffinity(0, sizeof saved_, &saved_) != 0) return;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (!CPU_ISSET(c, &saved_)) continue;
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(c, &one);
      pinned_ = sched_setaffinity(0, sizeof one, &one) == 0;
      return;
    }
  }
  ~OneCpuAffinity() {
    if (pinned_) sched_setaffinity(0, sizeof saved_, &saved_);
  }
  OneCpuAffinity(const OneCpuAffinity&) = delete;
  OneCpuAffinity& operator=(const OneCpuAffinity&) = delete;
  bool pinned() const { return pinned_; }

 private:
  cpu_set_t saved_;
  bool pinned_ = false;
};

}  // namespace ttd::test
