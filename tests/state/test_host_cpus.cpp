#include <doctest/doctest.h>
#include <sched.h>

#include "state/host_cpus.h"
#include "tests/support/one_cpu_affinity.h"

using namespace ttd;

TEST_CASE("host cpus: the affinity mask's CPUs, one when pinned") {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  CHECK(usable_cpus() == unsigned(CPU_COUNT(&set)));
  {
    test::OneCpuAffinity one;
    REQUIRE(one.pinned());
    CHECK(usable_cpus() == 1);
  }
  CHECK(usable_cpus() == unsigned(CPU_COUNT(&set)));  // mask restored
}
