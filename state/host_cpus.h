// What the host lends this process to run on.
#pragma once

namespace ttd {

// The CPUs this process may run on (its affinity mask, as taskset or a
// container's cpuset leave it), at least 1. Helper threads that only
// overlap work with their caller's (read-ahead, background compression)
// gain nothing on one CPU and cost a context switch per hand-off there.
unsigned usable_cpus();

}  // namespace ttd
