#include "gdbstub/transport.h"

#include <cerrno>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ttd::gdb {

FdTransport::FdTransport(int read_fd, int write_fd, bool owns_fds)
    : read_fd_(read_fd), write_fd_(write_fd), owns_(owns_fds) {}

FdTransport::~FdTransport() {
  if (!owns_) return;
  if (read_fd_ >= 0) ::close(read_fd_);
  if (write_fd_ >= 0 && write_fd_ != read_fd_) ::close(write_fd_);
}

ReadResult FdTransport::read(std::span<uint8_t> buffer, int timeout_ms) {
  pollfd p{read_fd_, POLLIN, 0};
  int r;
  do r = ::poll(&p, 1, timeout_ms);
  while (r < 0 && errno == EINTR);
  if (r < 0) return {ReadStatus::Closed, 0};
  if (r == 0) return {ReadStatus::Timeout, 0};
  ssize_t n;
  do n = ::read(read_fd_, buffer.data(), buffer.size());
  while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return {ReadStatus::Timeout, 0};
  if (n <= 0) return {ReadStatus::Closed, 0};
  return {ReadStatus::Data, size_t(n)};
}

bool FdTransport::write(std::string_view bytes) {
  while (!bytes.empty()) {
    pollfd p{write_fd_, POLLOUT, 0};
    int r;
    do r = ::poll(&p, 1, kWriteTimeoutMs);
    while (r < 0 && errno == EINTR);
    if (r <= 0 || (p.revents & (POLLERR | POLLNVAL))) return false;
    // send() with MSG_NOSIGNAL so a vanished client is an error value, not
    // SIGPIPE; plain write() for pipes and terminals.
    ssize_t n = ::send(write_fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(write_fd_, bytes.data(), bytes.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(size_t(n));
  }
  return true;
}

}  // namespace ttd::gdb
