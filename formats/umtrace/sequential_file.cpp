#include "formats/umtrace/sequential_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ttd::fmt::umtrace {

Result<SequentialFile> SequentialFile::open(const std::string& path, size_t window) {
  SequentialFile f;
  f.path_ = path;
  f.window_ = window;
  f.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd_ < 0) return make_error(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd_, &st) != 0) return make_error(path, std::string("cannot stat: ") + std::strerror(errno));
  f.size_ = uint64_t(st.st_size);
  ::posix_fadvise(f.fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  return f;
}

SequentialFile::SequentialFile(SequentialFile&& o) noexcept { *this = std::move(o); }

SequentialFile& SequentialFile::operator=(SequentialFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(o.path_);
    fd_ = o.fd_;
    size_ = o.size_;
    window_ = o.window_;
    buf_ = std::move(o.buf_);
    buf_offset_ = o.buf_offset_;
    buf_length_ = o.buf_length_;
    o.fd_ = -1;
  }
  return *this;
}

SequentialFile::~SequentialFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<const uint8_t*> SequentialFile::view(uint64_t offset, uint64_t length) {
  if (offset >= buf_offset_ && offset + length <= buf_offset_ + buf_length_) return buf_.data() + (offset - buf_offset_);
  if (offset > size_ || length > size_ - offset)
    return make_error_at(path_, offset, std::to_string(length) + " bytes past the end of the " +
                                            std::to_string(size_) + "-byte file");
  // Start the window at the view; keep it small unless this view needs more.
  const uint64_t want = std::min<uint64_t>(std::max<uint64_t>(window_, length), size_ - offset);
  if (buf_.size() < want || (buf_.size() > window_ && want <= window_)) {
    buf_.resize(want);
    buf_.shrink_to_fit();
  }
  uint64_t got = 0;
  while (got < want) {
    const ssize_t n = ::pread(fd_, buf_.data() + got, want - got, off_t(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return make_error_at(path_, offset + got, n < 0 ? std::string("read failed: ") + std::strerror(errno)
                                                      : std::string("file ended early (truncated while reading?)"));
    got += uint64_t(n);
  }
  buf_offset_ = offset;
  buf_length_ = want;
  return buf_.data();
}

}  // namespace ttd::fmt::umtrace
