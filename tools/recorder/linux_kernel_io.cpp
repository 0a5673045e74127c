// File-descriptor syscalls. The guest has exactly stdin, stdout and stderr;
// there is no file system, so calls on paths other than the few the C
// libraries need are reported as unsupported.
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

constexpr uint64_t kAtEmptyPath = 0x1000;
constexpr uint64_t kSIfifo = 0010000;
constexpr uint64_t kMaxIo = 1 << 20;  // per call; the guest loops for more

}  // namespace

int64_t LinuxKernel::sys_read(int fd, uint64_t buf, uint64_t len) {
  if (fd != 0 || closed_[0]) return (fd == 1 || fd == 2) && !closed_[fd] ? -EINVAL : -EBADF;
  len = std::min(len, kMaxIo);
  std::vector<uint8_t> data;
  if (cfg_.stdin_data) {
    size_t n = std::min<size_t>(len, cfg_.stdin_data->size() - stdin_pos_);
    data.assign(cfg_.stdin_data->begin() + stdin_pos_, cfg_.stdin_data->begin() + stdin_pos_ + n);
    stdin_pos_ += n;
  } else {
    data.resize(len);
    ssize_t n = ::read(0, data.data(), len);
    if (n < 0) return -errno;
    data.resize(size_t(n));
  }
  if (!copy_to_user(buf, data)) return -EFAULT;
  return int64_t(data.size());
}

int64_t LinuxKernel::sys_write(int fd, uint64_t buf, uint64_t len) {
  if (fd < 1 || fd > 2 || closed_[fd]) return fd == 0 && !closed_[0] ? -EINVAL : -EBADF;
  len = std::min(len, kMaxIo);
  std::vector<uint8_t> data(len);
  if (!copy_from_user(buf, data)) return -EFAULT;
  if (cfg_.capture_output) {
    out_[fd - 1].append(data.begin(), data.end());
  } else {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::write(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return done ? int64_t(done) : -errno;
      done += size_t(n);
    }
  }
  return int64_t(len);
}

int64_t LinuxKernel::sys_iov(bool write, int fd, uint64_t iov, uint64_t count) {
  if (count > 1024) return -EINVAL;
  std::vector<uint8_t> table(count * 16);
  if (!copy_from_user(iov, table)) return -EFAULT;
  int64_t total = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t base, len;
    std::memcpy(&base, table.data() + 16 * i, 8);
    std::memcpy(&len, table.data() + 16 * i + 8, 8);
    if (len == 0) continue;
    int64_t n = write ? sys_write(fd, base, len) : sys_read(fd, base, len);
    if (n < 0) return total ? total : n;
    total += n;
    if (uint64_t(n) < len) break;  // short transfer ends the vector, as in the kernel
  }
  return total;
}

int64_t LinuxKernel::sys_fstat(int fd, uint64_t buf, uint64_t steps) {
  if (fd < 0 || fd > 2 || closed_[fd]) return -EBADF;
  // The standard streams look like pipes: not a terminal (TCGETS says
  // ENOTTY too), so the C library buffers output the same way every run.
  StatInfo st;
  st.dev = 0xd;
  st.ino = 1000 + uint64_t(fd);
  st.mode = kSIfifo | 0600;
  st.uid = getuid();
  st.gid = getgid();
  st.time_sec = int64_t(1700000000 + steps / 1000000000);
  return copy_to_user(buf, arch_.encode_stat(st)) ? 0 : -EFAULT;
}

int64_t LinuxKernel::sys_newfstatat(int dirfd, uint64_t path, uint64_t buf, uint64_t flags, uint64_t steps) {
  auto p = read_c_string(path);
  if (!p) return -EFAULT;
  if (p->empty() && (flags & kAtEmptyPath)) return sys_fstat(dirfd, buf, steps);
  note_unsupported(current_, "newfstatat of a path");
  return -ENOENT;
}

int64_t LinuxKernel::sys_ioctl(int fd, uint64_t request, uint64_t arg) {
  if (fd < 0 || fd > 2 || closed_[fd]) return -EBADF;
  return -ENOTTY;  // TCGETS, TIOCGWINSZ, ...: the streams are not terminals
}

int64_t LinuxKernel::sys_readlink(uint64_t path, uint64_t buf, uint64_t size) {
  auto p = read_c_string(path);
  if (!p) return -EFAULT;
  if (*p != "/proc/self/exe") {
    note_unsupported(current_, "readlink of a path other than /proc/self/exe");
    return -ENOENT;
  }
  if (int64_t(size) <= 0) return -EINVAL;
  size_t n = std::min<size_t>(size, cfg_.exe_path.size());
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(cfg_.exe_path.data()), n);
  return copy_to_user(buf, bytes) ? int64_t(n) : -EFAULT;
}

int64_t LinuxKernel::sys_getrandom(uint64_t buf, uint64_t len) {
  len = std::min(len, kMaxIo);
  std::vector<uint8_t> bytes(len);
  // xorshift64*: deterministic, so two recordings of a program match.
  for (auto& b : bytes) {
    random_state_ ^= random_state_ >> 12;
    random_state_ ^= random_state_ << 25;
    random_state_ ^= random_state_ >> 27;
    b = uint8_t((random_state_ * 0x2545f4914f6cdd1dull) >> 56);
  }
  return copy_to_user(buf, bytes) ? int64_t(len) : -EFAULT;
}

}  // namespace ttd::rec
