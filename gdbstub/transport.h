// The byte pipe under a session: a connected TCP socket or a pair of file
// descriptors (stdin/stdout for `target remote | ttd serve --stdio`).
// Neither direction can hang a session forever: reads wait only as long as
// asked, and a write that makes no progress for kWriteTimeoutMs fails.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace ttd::gdb {

enum class ReadStatus : uint8_t { Data, Timeout, Closed };
struct ReadResult {
  ReadStatus status = ReadStatus::Closed;
  size_t bytes = 0;
};

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
  FdTransport(int read_fd, int write_fd, bool owns_fds);
  ~FdTransport() override;
  FdTransport(const FdTransport&) = delete;
  FdTransport& operator=(const FdTransport&) = delete;

  ReadResult read(std::span<uint8_t> buffer, int timeout_ms) override;
  bool write(std::string_view bytes) override;

  static constexpr int kWriteTimeoutMs = 30000;

 private:
  int read_fd_, write_fd_;
  bool owns_;
};

}  // namespace ttd::gdb
