#include "state/host_cpus.h"

#include <sched.h>

#include <thread>

namespace ttd {

unsigned usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return unsigned(n);
  }
  const unsigned hw = std::thread::hardware_concurrency();  // no mask: every CPU the library sees
  return hw > 0 ? hw : 1;
}

}  // namespace ttd
