#include "formats/tt6/byte_window.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ttd::fmt::tt6 {

Result<std::unique_ptr<ByteWindow>> ByteWindow::open(const std::string& path, size_t buffer_size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(path, std::string("cannot open file: ") + std::strerror(errno));
  struct stat st {};
  uint64_t size = 0;
  if (fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      return make_error(path, "is a directory, not a TT6 trace file");
    }
    if (S_ISREG(st.st_mode)) size = uint64_t(st.st_size);
  }
  // The kernel reads ahead further for a sequential scan.
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  if (buffer_size < 4096) buffer_size = 4096;
  // A small file needs no big buffer, but a record must always fit.
  if (size > 0 && size + 64 < buffer_size) buffer_size = std::max<size_t>(size_t(size) + 64, 4096);
  return std::unique_ptr<ByteWindow>(new ByteWindow(path, fd, buffer_size, size));
}

ByteWindow::ByteWindow(std::string path, int fd, size_t cap, uint64_t file_size)
    : path_(std::move(path)), fd_(fd), buf_(new uint8_t[cap]), cap_(cap), file_size_(file_size) {
  pos_ = end_ = buf_.get();
}

ByteWindow::~ByteWindow() {
  if (fd_ >= 0) ::close(fd_);
}

Result<bool> ByteWindow::fill(size_t n) {
  if (n > cap_) {
    // Grow rather than fail: only escape records (at most 256 KiB) can ask
    // for more than a small file's buffer.
    size_t cap = std::max(n, cap_ * 2);
    std::unique_ptr<uint8_t[]> bigger(new uint8_t[cap]);
    size_t have = available();
    std::memcpy(bigger.get(), pos_, have);
    base_offset_ = offset();
    buf_ = std::move(bigger);
    cap_ = cap;
    pos_ = buf_.get();
    end_ = pos_ + have;
  }
  // Move the unread tail to the front, then read until n bytes are there.
  size_t have = available();
  if (pos_ != buf_.get()) {
    base_offset_ = offset();
    std::memmove(buf_.get(), pos_, have);
    pos_ = buf_.get();
    end_ = pos_ + have;
  }
  while (size_t(end_ - pos_) < n && !eof_) {
    ssize_t got = ::read(fd_, buf_.get() + (end_ - buf_.get()), cap_ - size_t(end_ - buf_.get()));
    if (got < 0) {
      if (errno == EINTR) continue;
      return make_error_at(path_, base_offset_ + uint64_t(end_ - buf_.get()),
                           std::string("read failed: ") + std::strerror(errno));
    }
    if (got == 0) {
      eof_ = true;
      break;
    }
    end_ += got;
  }
  return size_t(end_ - pos_) >= n;
}

}  // namespace ttd::fmt::tt6
