#include "formats/tenet/line_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ttd::fmt::tenet {

Result<std::unique_ptr<LineReader>> LineReader::open(const std::string& path, size_t buffer_size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(path, std::string("cannot open file: ") + std::strerror(errno));
  struct stat st {};
  uint64_t size = 0;
  if (fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      return make_error(path, "is a directory, not a Tenet trace file");
    }
    if (S_ISREG(st.st_mode)) size = uint64_t(st.st_size);
  }
  // The kernel reads ahead more aggressively for sequential scans.
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  // A small file needs no big buffer (it grows if a line needs it).
  if (size > 0 && size < buffer_size) buffer_size = size_t(size) + 1;
  if (buffer_size < 64) buffer_size = 64;
  return std::unique_ptr<LineReader>(new LineReader(path, fd, buffer_size, size));
}

LineReader::LineReader(std::string path, int fd, size_t buffer_size, uint64_t file_size)
    : path_(std::move(path)), fd_(fd), buf_(new char[buffer_size]), cap_(buffer_size), file_size_(file_size) {}

LineReader::~LineReader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<bool> LineReader::refill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    buf_file_offset_ += begin_;
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == cap_) {
    // One line fills the whole buffer: grow it rather than split the line.
    if (cap_ >= kMaxLine)
      return make_error_at(path_, buf_file_offset_,
                           "line longer than " + std::to_string(kMaxLine >> 20) + " MiB: not a Tenet trace");
    size_t cap = cap_ * 2;
    std::unique_ptr<char[]> bigger(new char[cap]);
    std::memcpy(bigger.get(), buf_.get(), end_);
    buf_ = std::move(bigger);
    cap_ = cap;
  }
  for (;;) {
    ssize_t n = ::read(fd_, buf_.get() + end_, cap_ - end_);
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error_at(path_, buf_file_offset_ + end_, std::string("read failed: ") + std::strerror(errno));
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    end_ += size_t(n);
    return true;
  }
}

Result<bool> LineReader::next(std::string_view& line) {
  size_t scan_from = begin_;
  for (;;) {
    const char* start = buf_.get() + begin_;
    const void* nl = std::memchr(buf_.get() + scan_from, '\n', end_ - scan_from);
    if (nl || (eof_ && end_ > begin_)) {
      size_t len = nl ? size_t(static_cast<const char*>(nl) - start) : end_ - begin_;
      size_t advance = nl ? len + 1 : len;
      line_offset_ = buf_file_offset_ + begin_;
      line_terminated_ = nl != nullptr;
      ++line_number_;
      begin_ += advance;
      consumed_ = buf_file_offset_ + begin_;
      if (len > 0 && start[len - 1] == '\r') --len;
      line = std::string_view(start, len);
      return true;
    }
    if (eof_) return false;
    size_t scanned = end_ - begin_;  // bytes already searched for '\n'
    auto more = refill();
    if (!more) return more.error();
    scan_from = begin_ + scanned;
    if (!more.value() && end_ == begin_) return false;
  }
}

}  // namespace ttd::fmt::tenet
