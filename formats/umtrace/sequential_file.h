// Reads one file front to back through a reusable buffer with pread(2).
// For the execution table, which is read once in order: a copy from the
// page cache into a small buffer that stays in the CPU cache costs less
// than faulting in and then missing on every page of a mapping (measured:
// see docs/formats/umtrace.md). Views must move forward; one that does not
// fit the buffer grows it for that view only.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd::fmt::umtrace {

class SequentialFile {
 public:
  static constexpr size_t kDefaultWindow = size_t(1) << 20;

  static Result<SequentialFile> open(const std::string& path, size_t window = kDefaultWindow);
  SequentialFile(SequentialFile&& o) noexcept;
  SequentialFile& operator=(SequentialFile&& o) noexcept;
  ~SequentialFile();

  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Bytes [offset, offset + length), which the caller has checked lie in
  // the file. Valid until the next call.
  Result<const uint8_t*> view(uint64_t offset, uint64_t length);

 private:
  SequentialFile() = default;
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  size_t window_ = kDefaultWindow;
  std::vector<uint8_t> buf_;
  uint64_t buf_offset_ = 0;  // file offset of buf_[0]
  uint64_t buf_length_ = 0;  // valid bytes in buf_
};

}  // namespace ttd::fmt::umtrace
