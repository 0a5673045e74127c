#include "net/fd_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace ttd::net {

FdChannel::FdChannel(int read_fd, int write_fd, bool owns_fds, int write_timeout_ms)
    : read_fd_(read_fd), write_fd_(write_fd), owns_(owns_fds), write_timeout_ms_(write_timeout_ms) {
  if (::pipe2(wake_, O_CLOEXEC) != 0) wake_[0] = wake_[1] = -1;
}

FdChannel::~FdChannel() {
  for (int fd : wake_)
    if (fd >= 0) ::close(fd);
  if (!owns_) return;
  if (read_fd_ >= 0) ::close(read_fd_);
  if (write_fd_ >= 0 && write_fd_ != read_fd_) ::close(write_fd_);
}

ReadResult FdChannel::read(std::span<uint8_t> buffer, int timeout_ms) {
  for (;;) {
    pollfd p[2] = {{read_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    int r = ::poll(p, wake_[0] >= 0 ? 2 : 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return {ReadStatus::Closed, 0};
    if (r == 0) return {ReadStatus::Timeout, 0};
    if (wake_[0] >= 0 && p[1].revents) return {ReadStatus::Closed, 0};  // shut down
    ssize_t n;
    do n = ::read(read_fd_, buffer.data(), buffer.size());
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return {ReadStatus::Timeout, 0};
    if (n <= 0) return {ReadStatus::Closed, 0};
    return {ReadStatus::Data, size_t(n)};
  }
}

bool FdChannel::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    pollfd p{write_fd_, POLLOUT, 0};
    int r;
    do r = ::poll(&p, 1, write_timeout_ms_);
    while (r < 0 && errno == EINTR);
    if (r <= 0 || (p.revents & (POLLERR | POLLNVAL))) return false;
    // MSG_DONTWAIT: a blocking send of a large reply would wait for the
    // peer past the timeout; the poll above is the only wait.
    ssize_t n = ::send(write_fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == ENOTSOCK) n = ::write(write_fd_, bytes.data(), bytes.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(size_t(n));
  }
  return true;
}

bool FdChannel::readable_within(int timeout_ms) {
  for (;;) {
    pollfd p[2] = {{read_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
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

}  // namespace ttd::net
