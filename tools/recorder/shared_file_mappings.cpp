#include "tools/recorder/shared_file_mappings.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace ttd::rec {

namespace {

int64_t pwrite_all(int fd, const uint8_t* p, size_t n, uint64_t at) {
  for (size_t done = 0; done < n;) {
    const ssize_t w = ::pwrite(fd, p + done, n - done, off_t(at + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return w < 0 ? -errno : -EIO;
    done += size_t(w);
  }
  return 0;
}

}  // namespace

SharedFileMappings::~SharedFileMappings() { forget_all(); }

void SharedFileMappings::add(const GuestMemory& mem, uint64_t addr, uint64_t size, int host_fd, uint64_t offset) {
  const int fd = ::fcntl(host_fd, F_DUPFD_CLOEXEC, 3);
  if (fd < 0) return;
  Mapping m{addr, size, offset, fd, {}};
  std::vector<uint8_t> buf(mem.page_size());
  for (uint64_t a = addr; a < addr + size; a += mem.page_size()) m.hashes.push_back(mem.page_hash(a, buf).value_or(0));
  maps_.push_back(std::move(m));
}

bool SharedFileMappings::overlaps(uint64_t addr, uint64_t len) const {
  return std::any_of(maps_.begin(), maps_.end(),
                     [&](const Mapping& m) { return addr < m.addr + m.size && m.addr < addr + len; });
}

int64_t SharedFileMappings::write_back(const GuestMemory& mem, uint64_t addr, uint64_t len, bool forget) {
  const uint64_t page = mem.page_size();
  addr &= ~(page - 1);
  int64_t result = 0;
  std::vector<Mapping> kept;
  std::vector<uint8_t> buf(page);
  for (Mapping& m : maps_) {
    const uint64_t from = std::max(addr, m.addr), to = std::min(addr + len, m.addr + m.size);
    if (from >= to) {
      kept.push_back(std::move(m));
      continue;
    }
    struct stat st {};
    const uint64_t file_end = ::fstat(m.fd, &st) == 0 ? uint64_t(st.st_size) : 0;
    for (uint64_t a = from; a < to; a += page) {
      uint64_t& known = m.hashes[(a - m.addr) / page];
      const uint64_t now = mem.page_hash(a, buf).value_or(0);
      if (now == known) continue;  // as mapped or as last written: not the program's store
      const uint64_t at = m.offset + (a - m.addr);
      const uint64_t n = at < file_end ? std::min(page, file_end - at) : 0;
      if (const int64_t e = n ? pwrite_all(m.fd, buf.data(), n, at) : 0; e < 0) {
        if (result == 0) result = e;
        continue;
      }
      known = now;
    }
    if (!forget) {
      kept.push_back(std::move(m));
      continue;
    }
    // What is left of the mapping on either side stays mapped.
    const size_t first = (from - m.addr) / page, last = (to - m.addr + page - 1) / page;
    bool fd_used = false;
    if (m.addr < from) {
      kept.push_back({m.addr, from - m.addr, m.offset, m.fd, {m.hashes.begin(), m.hashes.begin() + first}});
      fd_used = true;
    }
    if (to < m.addr + m.size) {
      const int fd = fd_used ? ::fcntl(m.fd, F_DUPFD_CLOEXEC, 3) : m.fd;
      if (fd >= 0)
        kept.push_back({to, m.addr + m.size - to, m.offset + (to - m.addr), fd,
                        {m.hashes.begin() + last, m.hashes.end()}});
      fd_used = fd_used || fd >= 0;
    }
    if (!fd_used) ::close(m.fd);
  }
  maps_ = std::move(kept);
  return result;
}

void SharedFileMappings::rehash(const GuestMemory& mem, uint64_t addr, uint64_t len) {
  const uint64_t page = mem.page_size();
  std::vector<uint8_t> buf(page);
  for (Mapping& m : maps_) {
    const uint64_t from = std::max(addr & ~(page - 1), m.addr), to = std::min(addr + len, m.addr + m.size);
    for (uint64_t a = from; a < to; a += page) m.hashes[(a - m.addr) / page] = mem.page_hash(a, buf).value_or(0);
  }
}

void SharedFileMappings::write_back_all(const GuestMemory& mem) {
  while (!maps_.empty()) {
    const uint64_t addr = maps_.front().addr, size = maps_.front().size;
    write_back(mem, addr, size, true);
  }
}

void SharedFileMappings::forget_all() {
  for (const Mapping& m : maps_) ::close(m.fd);
  maps_.clear();
}

}  // namespace ttd::rec
