// Reading a host file at an offset until the buffer is full or the file
// ends (pread may return less; EINTR is retried): what the kernel's file
// mappings copy in (linux_kernel_mm.cpp, linux_kernel_file_coherence.cpp).
#pragma once
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <span>

namespace ttd::rec {

// Bytes read (fewer than out.size() at the end of the file), or -errno.
inline int64_t pread_until_end(int fd, std::span<uint8_t> out, uint64_t offset) {
  size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::pread(fd, out.data() + got, out.size() - got, off_t(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -errno;
    if (n == 0) break;
    got += size_t(n);
  }
  return int64_t(got);
}

}  // namespace ttd::rec
