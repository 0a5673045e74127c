#include "formats/common/file_window.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace ttd::fmt {

Result<FileWindow> FileWindow::open(const std::string& path, size_t window, const std::string& expected) {
  FileWindow w;
  w.path_ = path;
  w.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (w.fd_ < 0) return make_error(path, std::string("cannot open file: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(w.fd_, &st) != 0) return make_error(path, std::string("cannot stat file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return make_error(path, "is a directory, not " + expected);
  w.regular_ = S_ISREG(st.st_mode);
  if (w.regular_) w.file_size_ = uint64_t(st.st_size);
  // The kernel reads ahead further for a sequential scan.
  ::posix_fadvise(w.fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  w.window_ = std::max(window, kMinWindow);
  // A small file needs no big buffer (+1: the read that sees the end fits).
  size_t cap = w.window_;
  if (w.regular_ && w.file_size_ < cap) cap = std::max(size_t(w.file_size_) + 1, kMinWindow);
  w.buf_.reset(new uint8_t[cap]);
  w.cap_ = cap;
  return w;
}

FileWindow::FileWindow(FileWindow&& o) noexcept { *this = std::move(o); }

FileWindow& FileWindow::operator=(FileWindow&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(o.path_);
    fd_ = std::exchange(o.fd_, -1);
    regular_ = o.regular_;
    eof_ = o.eof_;
    file_size_ = o.file_size_;
    window_ = o.window_;
    buf_ = std::move(o.buf_);
    cap_ = std::exchange(o.cap_, 0);
    base_ = o.base_;
    pos_ = std::exchange(o.pos_, 0);
    len_ = std::exchange(o.len_, 0);
    fd_offset_ = o.fd_offset_;
  }
  return *this;
}

FileWindow::~FileWindow() {
  if (fd_ >= 0) ::close(fd_);
}

void FileWindow::seek(uint64_t off) {
  if (off >= base_ && off <= base_ + len_) {
    pos_ = size_t(off - base_);
    return;
  }
  base_ = off;
  pos_ = len_ = 0;
  eof_ = false;
}

void FileWindow::reallocate(size_t cap) {
  std::unique_ptr<uint8_t[]> fresh(new uint8_t[cap]);
  const size_t have = len_ - pos_;
  std::memcpy(fresh.get(), buf_.get() + pos_, have);
  base_ += pos_;
  pos_ = 0;
  len_ = have;
  buf_ = std::move(fresh);
  cap_ = cap;
}

Result<bool> FileWindow::fill(size_t n) {
  // A regular file cannot give more than it holds: a hostile length never
  // sizes the buffer beyond the file.
  size_t want = n;
  if (regular_ && uint64_t(n) > remaining()) want = size_t(std::max<uint64_t>(remaining(), available()));
  const size_t have = len_ - pos_;
  if (want > cap_)
    reallocate(std::max(want, cap_ * 2));  // doubling: a line grown byte by byte costs linear time
  else if (cap_ > window_ && want <= window_ && have <= window_)
    reallocate(window_);  // a big request is over: back to the window
  if (pos_ > 0) {
    std::memmove(buf_.get(), buf_.get() + pos_, have);
    base_ += pos_;
    pos_ = 0;
    len_ = have;
  }
  if (base_ + len_ != fd_offset_ && !eof_) {
    const off_t at = off_t(base_ + len_);
    if (::lseek(fd_, at, SEEK_SET) != at)
      return make_error_at(path_, base_ + len_, std::string("cannot seek: ") + std::strerror(errno));
    fd_offset_ = base_ + len_;
  }
  while (len_ < want && !eof_) {
    const ssize_t got = ::read(fd_, buf_.get() + len_, cap_ - len_);
    if (got < 0) {
      if (errno == EINTR) continue;
      return make_error_at(path_, base_ + len_, std::string("read failed: ") + std::strerror(errno));
    }
    if (got == 0) {
      eof_ = true;
      break;
    }
    len_ += size_t(got);
    fd_offset_ += uint64_t(got);
  }
  return len_ >= n;
}

Result<const uint8_t*> FileWindow::view_slow(uint64_t off, size_t length) {
  if (regular_ && (off > file_size_ || length > file_size_ - off))
    return make_error_at(path_, off, std::to_string(length) + " bytes past the end of the " +
                                         std::to_string(file_size_) + "-byte file");
  seek(off);
  auto got = ensure(length);
  if (!got) return got.error();
  if (!got.value()) return make_error_at(path_, offset() + available(), "file ended early (truncated while reading?)");
  return data();
}

}  // namespace ttd::fmt
