#include "formats/ucir/backing_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace ttd::fmt::ucir {

namespace {

BackingMatch no(std::string why) {
  BackingMatch m;
  m.reason = std::move(why);
  return m;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

BackingMatch match_backing_file(const std::string& file, uint64_t file_off, uint64_t file_len, uint64_t map_size,
                                std::span<const uint8_t> trimmed, uint64_t& budget) {
  if (trimmed.empty()) return no("nothing to place");
  const uint64_t n = file_len < map_size ? file_len : map_size;  // file bytes the mapping holds
  if (n < trimmed.size()) return no("the mapped file bytes (" + std::to_string(n) + ") are fewer than the trace's data");
  if (n > budget) return no("reading " + std::to_string(n) + " bytes would exceed the backing-file read budget");
  // stat first: never open a device, FIFO or socket the trace names.
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return no(std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return no("not a regular file");
  Fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) return no(std::string("cannot open: ") + std::strerror(errno));
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return no("not a regular file");
  // Also refuses files whose size the kernel does not know (procfs says 0).
  if (file_off > uint64_t(st.st_size) || uint64_t(st.st_size) - file_off < n)
    return no("the file has " + std::to_string(st.st_size) + " bytes, fewer than offset " + std::to_string(file_off) +
              " + " + std::to_string(n));

  // One pass: leading zeros, then the trimmed data byte for byte, then
  // zeros only.
  std::vector<uint8_t> buf(uint64_t(64) << 10);
  uint64_t pos = 0, lead = 0, matched = 0;
  bool in_lead = true;
  while (pos < n) {
    const size_t want = size_t(n - pos < buf.size() ? n - pos : buf.size());
    ssize_t got = ::pread(fd.get(), buf.data(), want, off_t(file_off + pos));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      return no(got < 0 ? std::string("read failed: ") + std::strerror(errno)
                        : "the file ended at offset " + std::to_string(file_off + pos));
    budget -= uint64_t(got);
    for (ssize_t i = 0; i < got; ++i) {
      const uint8_t b = buf[size_t(i)];
      if (in_lead) {
        if (b == 0) {
          ++lead;
          continue;
        }
        in_lead = false;
      }
      if (matched < trimmed.size()) {
        if (b != trimmed[matched])
          return no("differs from the trace's data at file offset " + std::to_string(file_off + pos + uint64_t(i)));
        ++matched;
      } else if (b != 0) {
        return no("holds non-zero bytes after the trace's data, at file offset " +
                  std::to_string(file_off + pos + uint64_t(i)));
      }
    }
    pos += uint64_t(got);
  }
  if (matched < trimmed.size()) return no("holds only part of the trace's data");
  BackingMatch m;
  m.agrees = true;
  m.lead = lead;
  return m;
}

}  // namespace ttd::fmt::ucir
