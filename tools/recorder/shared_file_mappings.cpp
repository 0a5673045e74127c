#include "tools/recorder/shared_file_mappings.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace ttd::rec {

SharedFileMappings::~SharedFileMappings() { forget_all(); }

void SharedFileMappings::add(uint64_t addr, uint64_t size, int host_fd, uint64_t offset) {
  const int fd = ::fcntl(host_fd, F_DUPFD_CLOEXEC, 3);
  if (fd >= 0) maps_.push_back({addr, size, offset, fd});
}

bool SharedFileMappings::overlaps(uint64_t addr, uint64_t len) const {
  return std::any_of(maps_.begin(), maps_.end(),
                     [&](const Mapping& m) { return addr < m.addr + m.size && m.addr < addr + len; });
}

int64_t SharedFileMappings::write_back(const GuestMemory& mem, uint64_t addr, uint64_t len, bool forget) {
  int64_t result = 0;
  std::vector<Mapping> kept;
  std::vector<uint8_t> bytes;
  for (const Mapping& m : maps_) {
    const uint64_t from = std::max(addr, m.addr), to = std::min(addr + len, m.addr + m.size);
    if (from >= to) {
      kept.push_back(m);
      continue;
    }
    struct stat st {};
    const uint64_t file_end = ::fstat(m.fd, &st) == 0 ? uint64_t(st.st_size) : 0;
    const uint64_t at = m.offset + (from - m.addr);
    const uint64_t n = at < file_end ? std::min(to - from, file_end - at) : 0;
    bytes.resize(n);
    if (n && mem.read(from, bytes)) {
      for (size_t done = 0; done < n;) {
        const ssize_t w = ::pwrite(m.fd, bytes.data() + done, n - done, off_t(at + done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
          if (result == 0) result = w < 0 ? -errno : -EIO;
          break;
        }
        done += size_t(w);
      }
    }
    if (!forget) {
      kept.push_back(m);
      continue;
    }
    // What is left of the mapping on either side stays mapped.
    bool fd_used = false;
    if (m.addr < from) kept.push_back({m.addr, from - m.addr, m.offset, m.fd}), fd_used = true;
    if (to < m.addr + m.size) {
      const int fd = fd_used ? ::fcntl(m.fd, F_DUPFD_CLOEXEC, 3) : m.fd;
      if (fd >= 0) kept.push_back({to, m.addr + m.size - to, m.offset + (to - m.addr), fd});
      fd_used = true;
    }
    if (!fd_used) ::close(m.fd);
  }
  maps_ = std::move(kept);
  return result;
}

void SharedFileMappings::write_back_all(const GuestMemory& mem) {
  while (!maps_.empty()) {
    const Mapping m = maps_.front();
    write_back(mem, m.addr, m.size, true);
  }
}

void SharedFileMappings::forget_all() {
  for (const Mapping& m : maps_) ::close(m.fd);
  maps_.clear();
}

}  // namespace ttd::rec
