// eventfd and eventfd2: a counter the recorder keeps (guest_eventfd.h), so
// what a read returns depends on the program's own writes alone. A
// blocking read of 0 or a write that would overflow parks the thread
// (LinuxKernel::blocks) until another thread's write or read changes the
// counter, as a pipe the program made does; what a read returns is a
// guest memory write, so it is in the trace as the syscall's effect.
#include <poll.h>

#include <cerrno>
#include <cstring>

#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

// The same values on x86-64 and AArch64 (include/uapi/linux/eventfd.h).
constexpr uint64_t kEfdSemaphore = 1, kEfdNonblock = 04000, kEfdCloexec = 02000000;

}  // namespace

int64_t LinuxKernel::sys_eventfd(uint64_t initval, uint64_t flags) {
  if (flags & ~(kEfdSemaphore | kEfdNonblock | kEfdCloexec)) return -EINVAL;
  GuestFd f;
  f.kind = GuestFd::Kind::Eventfd;
  f.cloexec = flags & kEfdCloexec;
  f.path = "anon_inode:[eventfd]";
  // The count is an unsigned int argument.
  f.eventfd = std::make_shared<GuestEventfd>(uint32_t(initval), flags & kEfdSemaphore, flags & kEfdNonblock);
  return fds_.add(std::move(f));
}

// An 8-byte read or write; the counter changes only when the guest's
// buffer can be read or written.
int64_t LinuxKernel::eventfd_transfer(bool write, const GuestFd& f, uint64_t buf, uint64_t len) {
  if (len < 8) return -EINVAL;
  GuestEventfd& ev = *f.eventfd;
  uint8_t raw[8];
  if (write) {
    if (!copy_from_user(buf, raw)) return -EFAULT;
    uint64_t v;
    std::memcpy(&v, raw, 8);
    return ev.write(v);
  }
  if (!mem_.accessible(buf, 8, kProtWrite)) return -EFAULT;
  uint64_t v = 0;
  if (int64_t r = ev.read(v); r < 0) return r;
  std::memcpy(raw, &v, 8);
  return copy_to_user(buf, raw) ? 8 : -EFAULT;
}

bool LinuxKernel::eventfd_blocks(bool write, int fd, const GuestFd& f, uint64_t buf, uint64_t len) {
  const GuestEventfd& ev = *f.eventfd;
  if (len < 8 || ev.nonblocking()) return false;
  if (write) {
    uint8_t raw[8];
    if (!copy_from_user(buf, raw)) return false;  // call() says EFAULT
    uint64_t v;
    std::memcpy(&v, raw, 8);
    if (v == ~0ull || GuestEventfd::kMax - ev.count() >= v) return false;
  } else if (ev.readable()) {
    return false;
  }
  // Woken when the counter changes its way; a write that still does not
  // fit waits again when its syscall runs again.
  threads_.wait_io(IoWatch{fd, -1, short(write ? POLLOUT : POLLIN), f.eventfd});
  return true;
}

}  // namespace ttd::rec
