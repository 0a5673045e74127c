// A byte channel a DAP session talks over: stdin/stdout of `ttd dap`, an
// accepted TCP connection, or a socketpair in tests.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "net/fd_channel.h"
#include "state/error.h"

namespace ttd::dap {

class Channel {
 public:
  virtual ~Channel() = default;
  // Reads up to n bytes; returns 0 at end of input, -1 on error.
  virtual long read(void* buf, size_t n) = 0;
  // Writes everything or fails.
  virtual bool write_all(const void* buf, size_t n) = 0;
  // Makes a blocked read() return (used when the session ends).
  virtual void shutdown() {}
  // True when read() would not block (data, end of input or shutdown)
  // within timeout_ms. Channels that cannot tell say true.
  virtual bool readable_within(int timeout_ms) {
    (void)timeout_ms;
    return true;
  }
};

// Reads from one file descriptor and writes to another (both may be the
// same socket): the shared descriptor channel (net/fd_channel.h) behind the
// Channel interface. Does not close them unless `owns` is set. shutdown()
// wakes a blocked read() through a self-pipe, so it works for pipes
// (stdio) as well as sockets.
class FdChannel : public Channel {
 public:
  FdChannel(int in_fd, int out_fd, bool owns = false);
  long read(void* buf, size_t n) override;
  bool write_all(const void* buf, size_t n) override;
  void shutdown() override { channel_.shutdown(); }
  bool readable_within(int timeout_ms) override { return channel_.readable_within(timeout_ms); }

 private:
  net::FdChannel channel_;
};

}  // namespace ttd::dap
