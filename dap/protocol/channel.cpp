#include "dap/protocol/channel.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

namespace ttd::dap {

FdChannel::FdChannel(int in_fd, int out_fd, bool owns) : in_(in_fd), out_(out_fd), owns_(owns) {
  if (::pipe2(wake_, O_CLOEXEC) != 0) wake_[0] = wake_[1] = -1;
  // A client that goes away must end the session, not kill the process.
  ::signal(SIGPIPE, SIG_IGN);
}

FdChannel::~FdChannel() {
  for (int fd : wake_)
    if (fd >= 0) ::close(fd);
  if (!owns_) return;
  ::close(in_);
  if (out_ != in_) ::close(out_);
}

long FdChannel::read(void* buf, size_t n) {
  for (;;) {
    if (wake_[0] >= 0) {
      pollfd p[2] = {{in_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      int r = ::poll(p, 2, -1);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return -1;
      if (p[1].revents) return 0;  // shut down
    }
    ssize_t r = ::read(in_, buf, n);
    if (r < 0 && errno == EINTR) continue;
    return long(r);
  }
}

bool FdChannel::write_all(const void* buf, size_t n) {
  const char* p = static_cast<const char*>(buf);
  while (n > 0) {
    ssize_t w = ::write(out_, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  return true;
}

bool FdChannel::readable_within(int timeout_ms) {
  for (;;) {
    pollfd p[2] = {{in_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    int r = ::poll(p, wake_[0] >= 0 ? 2 : 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    return r != 0;  // ready, or an error read() will report
  }
}

void FdChannel::shutdown() {
  if (wake_[1] >= 0) {
    char c = 1;
    (void)!::write(wake_[1], &c, 1);
  }
}

}  // namespace ttd::dap
