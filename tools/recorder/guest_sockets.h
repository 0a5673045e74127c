// What the recorder's kernel keeps about the guest's sockets beside the
// host descriptors themselves (docs/recording.md, "Sockets"), and the
// translation of ancillary data between guest and host. Sockets are host
// sockets: the guest's struct msghdr, cmsghdr, sockaddr and ucred have the
// host's LP64 layout on x86-64 and AArch64 alike, so only descriptors and
// the process id inside control messages need translating.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace ttd::rec {

// struct msghdr as both guest ABIs lay it out (56 bytes).
struct GuestMsghdr {
  static constexpr size_t kSize = 56;
  uint64_t name = 0;
  uint32_t namelen = 0;
  uint64_t iov = 0, iovlen = 0, control = 0, controllen = 0;
  uint32_t flags = 0;
  static GuestMsghdr decode(std::span<const uint8_t, kSize> raw);
  // Offsets of the fields recvmsg writes back.
  static constexpr uint64_t kNamelenAt = 8, kControllenAt = 40, kFlagsAt = 48;
};

// SCM_RIGHTS in a message the guest sends: each guest fd becomes the host
// descriptor `host_of` gives (-1: not a host descriptor, and the send
// fails with -EBADF); SCM_CREDENTIALS naming `guest_pid` is given the
// host's pid (the host kernel checks it). Other messages pass unchanged.
// 0 or -errno; `out` is the host's control buffer.
int64_t control_to_host(std::span<const uint8_t> guest, const std::function<int(int)>& host_of, pid_t guest_pid,
                        std::vector<uint8_t>& out);

// SCM_RIGHTS in a message received on the host: each host descriptor is
// handed to `install`, which owns it from then and returns the guest fd
// (or -errno, and the descriptor is closed). The buffer is rewritten in
// place; how many descriptors could not be installed is returned (their
// slots hold -1, and the caller reports MSG_CTRUNC as Linux does when it
// cannot install them).
size_t control_from_host(std::span<uint8_t> control, const std::function<int(int)>& install);

// connect on a socket the guest wants blocking: the host connect is
// started without blocking the recorder (LinuxKernel::blocks), and the
// call's answer is kept here until the thread runs the call again.
class GuestConnects {
 public:
  // The host connect returned at once: its answer.
  void finished(uint64_t file, int64_t result) { state_[file] = result; }
  // It is in progress (EINPROGRESS): the thread waits for POLLOUT.
  void started(uint64_t file) { state_[file] = std::nullopt; }
  bool pending(uint64_t file) const { return state_.count(file) != 0; }
  // The kept answer (nullopt: ask the socket, SO_ERROR), forgotten.
  std::optional<int64_t> take(uint64_t file) {
    auto it = state_.find(file);
    std::optional<int64_t> r = it->second;
    state_.erase(it);
    return r;
  }

 private:
  std::map<uint64_t, std::optional<int64_t>> state_;  // by GuestFd::file
};

}  // namespace ttd::rec
