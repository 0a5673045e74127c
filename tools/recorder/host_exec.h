// execve on the host for a guest process the recorder does not record (a
// fork's child): the descriptors, working directory, umask and signal
// state the guest set up become the host process's, then the host kernel
// runs the program natively. If the exec fails, everything is put back as
// it was, so the emulated child goes on with -errno as on Linux.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tools/recorder/guest_rlimits.h"

namespace ttd::rec {

struct HostExec {
  int dirfd = -1;  // host directory for a relative path (execveat's dirfd); the cwd for execve
  std::string path;
  int flags = 0;   // execveat flags (AT_EMPTY_PATH, AT_SYMLINK_NOFOLLOW)
  std::vector<std::string> argv, envp;
  // (guest fd, host fd) for every descriptor the program inherits: the
  // host fd is put on the guest's number; every other descriptor of the
  // process is closed by the exec.
  std::vector<std::pair<int, int>> fds;
  int cwd = -1;           // host directory descriptor of the guest's working directory
  uint32_t umask = 022;
  uint64_t sigmask = 0;   // blocked signals (bit n-1 = signal n)
  uint64_t ignored = 0;   // signals set to SIG_IGN (kept across exec, as Linux does)
  GuestRlimits rlimits;   // the guest's resource limits, the new program's
};

// Returns only if the exec failed: -errno.
int64_t exec_on_host(const HostExec& x);

}  // namespace ttd::rec
