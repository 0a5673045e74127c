// Reads a text file line by line through one large buffer with read(2):
// never the whole file in memory, no per-line allocation. Lines come back
// without their terminator ("\n" or "\r\n") and with their 1-based number
// and byte offset for error messages.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "state/error.h"

namespace ttd::fmt::tenet {

class LineReader {
 public:
  static constexpr size_t kDefaultBuffer = size_t(4) << 20;
  // A single line longer than this is refused: no Tenet line is that long,
  // and growing without bound on a binary file would exhaust memory.
  static constexpr size_t kMaxLine = size_t(256) << 20;

  static Result<std::unique_ptr<LineReader>> open(const std::string& path,
                                                  size_t buffer_size = kDefaultBuffer);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line (valid until the following call); false at the end.
  Result<bool> next(std::string_view& line);
  uint64_t line_number() const { return line_number_; }
  uint64_t line_offset() const { return line_offset_; }
  // False when the last line returned ended at the end of the file without
  // a '\n' (a file cut short ends that way).
  bool line_terminated() const { return line_terminated_; }
  uint64_t bytes_consumed() const { return consumed_; }
  uint64_t file_size() const { return file_size_; }
  const std::string& path() const { return path_; }

 private:
  LineReader(std::string path, int fd, size_t buffer_size, uint64_t file_size);
  // Moves the unread tail to the front and reads more; false at EOF.
  Result<bool> refill();

  std::string path_;
  int fd_ = -1;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0, begin_ = 0, end_ = 0;
  bool eof_ = false;
  uint64_t file_size_ = 0;
  uint64_t buf_file_offset_ = 0;  // file offset of buf_[0]
  uint64_t consumed_ = 0;         // file offset just past the last line returned
  uint64_t line_number_ = 0, line_offset_ = 0;
  bool line_terminated_ = true;
};

}  // namespace ttd::fmt::tenet
