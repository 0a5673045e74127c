// Tenet's line splitting over the formats' one file reader
// (formats/common/file_window.h): never the whole file in memory, no
// per-line allocation. Lines come back without their terminator ("\n" or
// "\r\n") and with their 1-based number and byte offset for error messages.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "formats/common/file_window.h"
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

  // The next line (valid until the following call); false at the end.
  Result<bool> next(std::string_view& line);
  uint64_t line_number() const { return line_number_; }
  uint64_t line_offset() const { return line_offset_; }
  // False when the last line returned ended at the end of the file without
  // a '\n' (a file cut short ends that way).
  bool line_terminated() const { return line_terminated_; }
  uint64_t bytes_consumed() const { return in_.offset(); }
  uint64_t file_size() const { return in_.file_size(); }
  const std::string& path() const { return in_.path(); }

 private:
  explicit LineReader(FileWindow in) : in_(std::move(in)) {}

  FileWindow in_;
  uint64_t line_number_ = 0, line_offset_ = 0;
  bool line_terminated_ = true;
};

}  // namespace ttd::fmt::tenet
