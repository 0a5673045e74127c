// Buffered sequential input over a trace file. XRay logs are read front to
// back, record by record; this keeps a window of the file in memory (1 MiB
// by default) so that the producers can look at a whole record at once
// without ever holding the whole file. Offsets are absolute file offsets so
// every error and report can name the byte it is about.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "state/byte_order.h"  // load_le16 / 32 / 64: XRay logs are little-endian
#include "state/error.h"

namespace ttd::fmt::xray {

class ByteStream {
 public:
  ByteStream() = default;
  ~ByteStream();
  ByteStream(ByteStream&& o) noexcept;
  ByteStream& operator=(ByteStream&& o) noexcept;
  ByteStream(const ByteStream&) = delete;
  ByteStream& operator=(const ByteStream&) = delete;

  static Result<ByteStream> open(const std::string& path, size_t window = size_t(1) << 20);

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  // Absolute offset of the next unread byte.
  uint64_t offset() const { return base_ + pos_; }
  uint64_t remaining() const { return size_ - offset(); }
  bool at_end() const { return offset() >= size_; }

  // Makes n bytes starting at offset() available and returns a pointer to
  // them, or nullptr when the file ends first (or an I/O error happened:
  // io_error() then says so). The pointer is valid until the next call that
  // moves or refills the window.
  const uint8_t* peek(size_t n) {
    if (len_ - pos_ >= n) return buf_.data() + pos_;
    return fill(n);
  }
  // Moves forward (may go past the window).
  void skip(uint64_t n) {
    if (n <= len_ - pos_)
      pos_ += size_t(n);
    else
      skip_slow(n);
  }
  void seek(uint64_t offset);  // absolute; clamps to size()
  const std::string& io_error() const { return io_error_; }

 private:
  const uint8_t* fill(size_t n);
  void skip_slow(uint64_t n);

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  uint64_t base_ = 0;  // file offset of buf_[0]
  size_t pos_ = 0, len_ = 0;
  std::vector<uint8_t> buf_;
  std::string io_error_;
};

}  // namespace ttd::fmt::xray
