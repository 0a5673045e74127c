#include "engine/export/output_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ttd::exporting {

std::string temp_name_beside(const std::string& path) {
  static std::atomic<unsigned> n{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(n++);
}

Result<std::unique_ptr<OutputStream>> OutputStream::open(const std::string& path) {
  std::unique_ptr<OutputStream> o(new OutputStream);
  o->buf_.reserve(kFlushAt + 4096);
  if (path.empty() || path == "-") {
    o->fd_ = STDOUT_FILENO;
    o->name_ = "stdout";
    return o;
  }
  o->name_ = path;
  // Refuse to replace what is not a regular file (a device, a folder): the
  // rename would swap it for our file.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return make_error(path, "is not a regular file; export writes regular files only (use -o - for stdout)");
  o->temp_path_ = temp_name_beside(path);
  o->fd_ = ::open(o->temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (o->fd_ < 0) return make_error(path, std::string("cannot create ") + o->temp_path_ + ": " + std::strerror(errno));
  o->is_file_ = true;
  return o;
}

OutputStream::~OutputStream() {
  if (is_file_) {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(temp_path_.c_str());
  }
}

void OutputStream::flush_buffer() {
  if (failed_) {
    buf_.clear();
    return;
  }
  const char* p = buf_.data();
  size_t n = buf_.size();
  while (n) {
    ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      failed_ = true;
      error_ = std::string("write failed after ") + std::to_string(written_) + " bytes: " +
               (w < 0 ? std::strerror(errno) : "no progress");
      break;
    }
    p += w;
    n -= size_t(w);
    written_ += uint64_t(w);
  }
  buf_.clear();
}

void OutputStream::write_at(uint64_t offset, std::string_view data) {
  flush_buffer();
  if (failed_) return;
  if (!is_file_) {
    failed_ = true;
    error_ = "cannot write at an offset of a stream";
    return;
  }
  while (!data.empty()) {
    const ssize_t w = ::pwrite(fd_, data.data(), data.size(), off_t(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      failed_ = true;
      error_ = std::string("write failed at byte ") + std::to_string(offset) + ": " +
               (w < 0 ? std::strerror(errno) : "no progress");
      return;
    }
    data.remove_prefix(size_t(w));
    offset += uint64_t(w);
  }
}

Status OutputStream::status() const {
  if (failed_) return make_error(name_, error_ + (is_file_ ? " (the partial file was removed)" : ""));
  return {};
}

Status OutputStream::commit() {
  flush_buffer();
  if (!failed_ && is_file_) {
    // close() can report a deferred write error (NFS, quota): check it.
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) {
      failed_ = true;
      error_ = std::string("close failed: ") + std::strerror(errno);
    } else if (::rename(temp_path_.c_str(), name_.c_str()) != 0) {
      failed_ = true;
      error_ = std::string("cannot rename ") + temp_path_ + " into place: " + std::strerror(errno);
    } else {
      committed_ = true;
    }
  }
  return status();
}

}  // namespace ttd::exporting
