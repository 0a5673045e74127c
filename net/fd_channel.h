// The byte pipe under a protocol session: a connected socket, or a pair of
// file descriptors (stdin/stdout). gdbstub's Transport and dap's Channel are
// this one channel behind each protocol's own interface.
//
// Contract:
// - read() waits at most timeout_ms (-1: until something happens) and says
//   Data (with a byte count), Timeout, or Closed (end of input, an error, or
//   shutdown()). It never blocks past shutdown().
// - write_all() writes everything or returns false: the peer is gone, or no
//   byte could be written for write_timeout_ms (-1: no limit). A vanished
//   socket peer is an error value, never SIGPIPE (send with MSG_NOSIGNAL;
//   pipes and terminals get plain write()).
// - shutdown() may be called from another thread; it wakes a blocked read()
//   through a self-pipe, so it works for pipes as well as sockets.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace ttd::net {

enum class ReadStatus : uint8_t { Data, Timeout, Closed };
struct ReadResult {
  ReadStatus status = ReadStatus::Closed;
  size_t bytes = 0;
};

class FdChannel {
 public:
  // The descriptors may be equal (a socket). With owns_fds they are closed
  // on destruction.
  FdChannel(int read_fd, int write_fd, bool owns_fds, int write_timeout_ms = -1);
  ~FdChannel();
  FdChannel(const FdChannel&) = delete;
  FdChannel& operator=(const FdChannel&) = delete;

  ReadResult read(std::span<uint8_t> buffer, int timeout_ms);
  bool write_all(std::string_view bytes);
  // True when read() would not block (data, end of input, an error or
  // shutdown) within timeout_ms.
  bool readable_within(int timeout_ms);
  void shutdown();

 private:
  int read_fd_, write_fd_;
  bool owns_;
  int write_timeout_ms_;
  int wake_[2] = {-1, -1};
};

}  // namespace ttd::net
