// The one reader every format uses to read a trace file front to back
// (Tenet lines, TT6 / FULL records, XRay logs, the Pin tool's execution
// table). It keeps a bounded window of the file in one buffer filled with
// read(2), never the whole file, whatever its size.
//
// Contract:
// - ensure(n) makes n contiguous bytes available at data(); it returns
//   false only when the file ends first (available() then holds what is
//   left), and an error (path + file offset) when read(2) fails.
// - The buffer holds `window` bytes (less for a small file). A request
//   bigger than that grows it for that request; the next request that fits
//   the window shrinks it back. Callers bound their requests (a record
//   size, a maximum line length): the window never bounds them.
// - offset() is the absolute file offset of data(), for error messages.
// - consume(n) / skip(n) / seek(offset) move forward or anywhere; moving
//   inside the window costs nothing, moving outside it empties the window
//   and the next ensure() reads from there (regular files only).
// - view(offset, length) is seek + ensure with the errors a table reader
//   wants: past the end of the file, or the file ended early.
// - Pointers into the window stay valid until the next call that reads
//   (ensure, view) or moves outside the window.
// - open() refuses a directory ("is a directory, not <expected>");
//   file_size() is the size at open for a regular file, 0 otherwise (a
//   pipe is read to its end).
// Not thread-safe; one window per reader.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "state/error.h"

namespace ttd::fmt {

class FileWindow {
 public:
  static constexpr size_t kDefaultWindow = size_t(1) << 20;
  static constexpr size_t kMinWindow = 64;

  // `expected` names what the file should be, for the directory message.
  static Result<FileWindow> open(const std::string& path, size_t window = kDefaultWindow,
                                 const std::string& expected = "a trace file");
  FileWindow(FileWindow&& o) noexcept;
  FileWindow& operator=(FileWindow&& o) noexcept;
  FileWindow(const FileWindow&) = delete;
  FileWindow& operator=(const FileWindow&) = delete;
  ~FileWindow();

  const std::string& path() const { return path_; }
  bool regular() const { return regular_; }
  uint64_t file_size() const { return file_size_; }
  // File offset of data().
  uint64_t offset() const { return base_ + pos_; }
  // Bytes of a regular file after offset() (0 past the end).
  uint64_t remaining() const { return file_size_ > offset() ? file_size_ - offset() : 0; }
  bool at_end() const { return offset() >= file_size_; }

  Result<bool> ensure(size_t n) {
    if (len_ - pos_ >= n) return true;
    return fill(n);
  }
  const uint8_t* data() const { return buf_.get() + pos_; }
  size_t available() const { return len_ - pos_; }
  // n <= available().
  void consume(size_t n) { pos_ += n; }
  // Moves forward by n bytes, past the window if need be.
  void skip(uint64_t n) {
    if (n <= len_ - pos_)
      pos_ += size_t(n);
    else
      seek(offset() + n);
  }
  void seek(uint64_t offset);
  // Bytes [offset, offset + length) of a regular file, or an error naming
  // the offset: the range runs past the end of the file, or the file ended
  // before it (it shrank while being read).
  Result<const uint8_t*> view(uint64_t offset, size_t length) {
    // Inside the window (a table read in order): no reading, no checks.
    if (offset >= base_ && offset - base_ <= len_ && len_ - size_t(offset - base_) >= length) {
      pos_ = size_t(offset - base_);
      return data();
    }
    return view_slow(offset, length);
  }
  size_t capacity() const { return cap_; }

 private:
  FileWindow() = default;
  Result<bool> fill(size_t n);
  Result<const uint8_t*> view_slow(uint64_t offset, size_t length);
  void reallocate(size_t cap);

  std::string path_;
  int fd_ = -1;
  bool regular_ = false;
  bool eof_ = false;
  uint64_t file_size_ = 0;
  size_t window_ = kDefaultWindow;
  std::unique_ptr<uint8_t[]> buf_;
  size_t cap_ = 0;
  uint64_t base_ = 0;      // file offset of buf_[0]
  size_t pos_ = 0, len_ = 0;  // data() = buf_ + pos_; valid bytes end at buf_ + len_
  uint64_t fd_offset_ = 0;  // where the next read(2) reads from
};

}  // namespace ttd::fmt
