// Sequential reads of a binary file through one buffer with read(2): the
// caller asks for N contiguous bytes, parses them in place and consumes
// them. Never holds more than the buffer, whatever the file size.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "state/error.h"

namespace ttd::fmt::tt6 {

class ByteWindow {
 public:
  static constexpr size_t kDefaultBuffer = size_t(8) << 20;

  static Result<std::unique_ptr<ByteWindow>> open(const std::string& path, size_t buffer_size = kDefaultBuffer);
  ~ByteWindow();
  ByteWindow(const ByteWindow&) = delete;
  ByteWindow& operator=(const ByteWindow&) = delete;

  // Makes at least n bytes (n <= buffer size) contiguous at data(). Returns
  // false only at the end of the file (then available() < n), or an error.
  Result<bool> ensure(size_t n) {
    if (size_t(end_ - pos_) >= n) return true;
    return fill(n);
  }
  const uint8_t* data() const { return pos_; }
  size_t available() const { return size_t(end_ - pos_); }
  void consume(size_t n) { pos_ += n; }
  // File offset of data().
  uint64_t offset() const { return base_offset_ + uint64_t(pos_ - buf_.get()); }
  uint64_t file_size() const { return file_size_; }
  size_t capacity() const { return cap_; }
  const std::string& path() const { return path_; }

 private:
  ByteWindow(std::string path, int fd, size_t cap, uint64_t file_size);
  Result<bool> fill(size_t n);

  std::string path_;
  int fd_ = -1;
  std::unique_ptr<uint8_t[]> buf_;
  size_t cap_ = 0;
  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;
  uint64_t base_offset_ = 0;  // file offset of buf_[0]
  uint64_t file_size_ = 0;
  bool eof_ = false;
};

}  // namespace ttd::fmt::tt6
