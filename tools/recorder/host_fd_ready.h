// Whether poll() says a host descriptor is ready for `events` now (or hung
// up, or in error: a call on it then returns at once too). The recorder
// asks before it lets a guest thread's call block on a host descriptor.
#pragma once
#include <poll.h>

namespace ttd::rec {

inline bool host_ready(int host, short events) {
  pollfd p{host, events, 0};
  return ::poll(&p, 1, 0) > 0;
}

}  // namespace ttd::rec
