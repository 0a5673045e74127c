// The byte pipe under a session: a connected TCP socket or a pair of file
// descriptors (stdin/stdout for `target remote | ttd serve --stdio`).
// Neither direction can hang a session forever: reads wait only as long as
// asked, and a write that makes no progress for kWriteTimeoutMs fails.
// FdTransport is the shared descriptor channel (net/fd_channel.h) behind
// the stub's Transport interface.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "net/fd_channel.h"

namespace ttd::gdb {

using ReadStatus = net::ReadStatus;
using ReadResult = net::ReadResult;

class Transport {
 public:
  virtual ~Transport() = default;
  // Waits up to timeout_ms (-1: no limit, 0: just poll) for some bytes.
  virtual ReadResult read(std::span<uint8_t> buffer, int timeout_ms) = 0;
  // Writes everything; false when the peer is gone or stopped reading.
  virtual bool write(std::string_view bytes) = 0;
};

class FdTransport final : public Transport {
 public:
  // The descriptors may be equal (a socket). With owns_fds they are closed
  // on destruction.
  FdTransport(int read_fd, int write_fd, bool owns_fds) : channel_(read_fd, write_fd, owns_fds, kWriteTimeoutMs) {}

  ReadResult read(std::span<uint8_t> buffer, int timeout_ms) override { return channel_.read(buffer, timeout_ms); }
  bool write(std::string_view bytes) override { return channel_.write_all(bytes); }

  static constexpr int kWriteTimeoutMs = 30000;

 private:
  net::FdChannel channel_;
};

}  // namespace ttd::gdb
