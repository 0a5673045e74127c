// Where an export's bytes go: standard output, or a file that appears
// under its name only when complete. A file is written as NAME.tmp.PID in
// the same folder and renamed onto NAME by commit(); an error or a
// destruction without commit() removes the temporary file, so a partial
// export is never found under the name the user asked for. On standard
// output (a pipe, a terminal) completeness is the exit status: a write
// error (EPIPE from `| head -1`, ENOSPC) is reported naming "stdout".
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "state/error.h"

namespace ttd::exporting {

class OutputStream {
 public:
  // path "" or "-" is standard output.
  static Result<std::unique_ptr<OutputStream>> open(const std::string& path);
  ~OutputStream();

  // Buffered; the first error sticks and later appends do nothing.
  void append(std::string_view s) {
    if (buf_.size() + s.size() > kFlushAt) flush_buffer();
    buf_.append(s);
  }
  void append(char c) {
    if (buf_.size() >= kFlushAt) flush_buffer();
    buf_.push_back(c);
  }
  // A file only: writes data at offset, after what is buffered (a header
  // known only at the end). An error sticks as append's do.
  void write_at(uint64_t offset, std::string_view data);
  // The error that stopped writing, if any.
  Status status() const;
  // Flushes, closes and (for a file) renames into place.
  Status commit();
  const std::string& name() const { return name_; }  // "stdout" or the path
  uint64_t bytes_written() const { return written_; }

 private:
  OutputStream() = default;
  static constexpr size_t kFlushAt = 1 << 20;
  void flush_buffer();

  int fd_ = -1;
  bool is_file_ = false, failed_ = false, committed_ = false;
  std::string name_, temp_path_, error_;
  std::string buf_;
  uint64_t written_ = 0;
};

// A temporary name beside `path` (same folder, so rename() is atomic).
std::string temp_name_beside(const std::string& path);

}  // namespace ttd::exporting
