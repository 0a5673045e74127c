// Resource limits as the guest sees them (guest_rlimits.h): the recorder's
// own to start with, set as prlimit64 sets them, and RLIMIT_NOFILE as the
// descriptor table's bound. End to end: cli_shell_limits_fds.py.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <cerrno>

#include "tools/recorder/guest_rlimits.h"

using ttd::rec::GuestRlimits;

TEST_CASE("guest resource limits: the recorder's own, set as prlimit64 sets them") {
  GuestRlimits g = GuestRlimits::of_host();
  rlimit host{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &host) == 0);
  CHECK(g.get(GuestRlimits::kNofile).cur == uint64_t(host.rlim_cur));
  CHECK(g.get(GuestRlimits::kNofile).max == uint64_t(host.rlim_max));
  CHECK_FALSE(g.changed(GuestRlimits::kNofile));
  // The recorder's own bound is reported without being the program's change.
  g.lower_reported(RLIMIT_STACK, 4096);
  CHECK(g.get(RLIMIT_STACK).cur <= 4096);
  CHECK_FALSE(g.changed(RLIMIT_STACK));
  // Lower the soft limit: reported back and bounding the table.
  CHECK(g.set(GuestRlimits::kNofile, {64, uint64_t(host.rlim_max)}) == 0);
  CHECK(g.get(GuestRlimits::kNofile).cur == 64);
  CHECK(g.max_fds() == 64);
  CHECK(g.changed(GuestRlimits::kNofile));
  // Soft above hard, and a resource Linux does not have.
  CHECK(g.set(GuestRlimits::kNofile, {65, 64}) == -EINVAL);
  CHECK(g.set(GuestRlimits::kCount, {1, 1}) == -EINVAL);
  // RLIMIT_NOFILE beyond fs.nr_open: refused even to root.
  CHECK(g.set(GuestRlimits::kNofile, {64, ~0ull}) == -EPERM);
  // A lowered hard limit comes back up only with CAP_SYS_RESOURCE, which a
  // test run may or may not have: what matters is that the refusal leaves it.
  CHECK(g.set(RLIMIT_CORE, {0, 0}) == 0);
  if (g.set(RLIMIT_CORE, {0, 1}) == -EPERM) CHECK(g.get(RLIMIT_CORE).max == 0);
  else CHECK(g.get(RLIMIT_CORE).max == 1);
}
