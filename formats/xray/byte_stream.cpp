#include "formats/xray/byte_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace ttd::fmt::xray {

ByteStream::~ByteStream() {
  if (fd_ >= 0) ::close(fd_);
}

ByteStream::ByteStream(ByteStream&& o) noexcept { *this = std::move(o); }

ByteStream& ByteStream::operator=(ByteStream&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(o.path_);
    fd_ = std::exchange(o.fd_, -1);
    size_ = o.size_;
    base_ = o.base_;
    pos_ = o.pos_;
    len_ = o.len_;
    buf_ = std::move(o.buf_);
    io_error_ = std::move(o.io_error_);
  }
  return *this;
}

Result<ByteStream> ByteStream::open(const std::string& path, size_t window) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(path, std::string("cannot open file: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return make_error(path, std::string("cannot stat file: ") + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(path, "not a regular file");
  }
  ByteStream s;
  s.path_ = path;
  s.fd_ = fd;
  s.size_ = uint64_t(st.st_size);
  // A small file needs no big window (fill() grows it if a record asks).
  uint64_t want = s.size_ < window ? s.size_ : window;
  s.buf_.resize(want < 64 ? 64 : size_t(want));
  return s;
}

const uint8_t* ByteStream::fill(size_t n) {
  if (offset() + n > size_) return nullptr;
  // Keep the unread tail, then read as much as the window holds. A record
  // bigger than the window (a large custom event payload) grows it; the
  // size is bounded by the file size checked above.
  size_t keep = len_ - pos_;
  if (n > buf_.size()) buf_.resize(n);
  if (keep && pos_) std::memmove(buf_.data(), buf_.data() + pos_, keep);
  base_ += pos_;
  pos_ = 0;
  len_ = keep;
  while (len_ < n) {
    ssize_t got = ::pread(fd_, buf_.data() + len_, buf_.size() - len_, off_t(base_ + len_));
    if (got < 0) {
      if (errno == EINTR) continue;
      io_error_ = std::string("read failed: ") + std::strerror(errno);
      return nullptr;
    }
    if (got == 0) {
      io_error_ = "file shrank while reading";
      return nullptr;
    }
    len_ += size_t(got);
  }
  return buf_.data();
}

void ByteStream::skip_slow(uint64_t n) { seek(offset() + n); }

void ByteStream::seek(uint64_t off) {
  if (off > size_) off = size_;
  if (off >= base_ && off <= base_ + len_) {
    pos_ = size_t(off - base_);
    return;
  }
  base_ = off;
  pos_ = len_ = 0;
}

}  // namespace ttd::fmt::xray
