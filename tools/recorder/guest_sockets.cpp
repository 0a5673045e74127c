#include "tools/recorder/guest_sockets.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ttd::rec {

namespace {

constexpr size_t kHdr = 16;  // struct cmsghdr: len (8), level (4), type (4)

size_t align8(size_t n) { return (n + 7) & ~size_t(7); }

}  // namespace

GuestMsghdr GuestMsghdr::decode(std::span<const uint8_t, kSize> raw) {
  GuestMsghdr m;
  std::memcpy(&m.name, raw.data(), 8);
  std::memcpy(&m.namelen, raw.data() + 8, 4);
  std::memcpy(&m.iov, raw.data() + 16, 8);
  std::memcpy(&m.iovlen, raw.data() + 24, 8);
  std::memcpy(&m.control, raw.data() + 32, 8);
  std::memcpy(&m.controllen, raw.data() + 40, 8);
  std::memcpy(&m.flags, raw.data() + 48, 4);
  return m;
}

int64_t control_to_host(std::span<const uint8_t> guest, const std::function<int(int)>& host_of, pid_t guest_pid,
                        std::vector<uint8_t>& out) {
  out.assign(guest.begin(), guest.end());
  size_t at = 0;
  while (at + kHdr <= out.size()) {
    uint64_t len;
    int32_t level, type;
    std::memcpy(&len, out.data() + at, 8);
    std::memcpy(&level, out.data() + at + 8, 4);
    std::memcpy(&type, out.data() + at + 12, 4);
    if (len < kHdr || len > out.size() - at) return -EINVAL;  // as __scm_send's CMSG_OK check
    if (level == SOL_SOCKET && type == SCM_RIGHTS) {
      for (size_t p = at + kHdr; p + 4 <= at + len; p += 4) {
        int fd;
        std::memcpy(&fd, out.data() + p, 4);
        const int host = host_of(fd);
        if (host < 0) return -EBADF;
        std::memcpy(out.data() + p, &host, 4);
      }
    } else if (level == SOL_SOCKET && type == SCM_CREDENTIALS && len >= kHdr + sizeof(ucred)) {
      ucred c;
      std::memcpy(&c, out.data() + at + kHdr, sizeof c);
      if (c.pid == guest_pid) c.pid = ::getpid();
      std::memcpy(out.data() + at + kHdr, &c, sizeof c);
    }
    at += align8(len);
  }
  return 0;
}

size_t control_from_host(std::span<uint8_t> control, const std::function<int(int)>& install) {
  size_t failed = 0, at = 0;
  while (at + kHdr <= control.size()) {
    uint64_t len;
    int32_t level, type;
    std::memcpy(&len, control.data() + at, 8);
    std::memcpy(&level, control.data() + at + 8, 4);
    std::memcpy(&type, control.data() + at + 12, 4);
    if (len < kHdr || len > control.size() - at) break;
    if (level == SOL_SOCKET && type == SCM_RIGHTS) {
      for (size_t p = at + kHdr; p + 4 <= at + len; p += 4) {
        int host;
        std::memcpy(&host, control.data() + p, 4);
        int guest = install(host);
        if (guest < 0) {
          ++failed;
          guest = -1;
        }
        std::memcpy(control.data() + p, &guest, 4);
      }
    }
    at += align8(len);
  }
  return failed;
}

}  // namespace ttd::rec
