// File-system information on the host: statfs / fstatfs and reading
// extended attributes (getxattr, lgetxattr, fgetxattr, and the list
// forms). `ls -l` asks for ACLs and SELinux labels, `find` and `ls` for the
// file-system type; these answer as the host does, and what the guest sees
// travels in the trace as the call's memory writes.
#include <fcntl.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

// struct statfs is 120 bytes with 64-bit words on x86-64 and in the
// generic layout AArch64 uses, the same field for field as this host's.
constexpr size_t kStatfsSize = 120;
static_assert(sizeof(struct statfs) == kStatfsSize, "a 64-bit Linux host is assumed");

constexpr uint64_t kXattrSizeMax = 65536;      // XATTR_SIZE_MAX
constexpr uint64_t kXattrListMax = 65536;      // XATTR_LIST_MAX
constexpr size_t kXattrNameMax = 255;          // XATTR_NAME_MAX

}  // namespace

std::string LinuxKernel::host_path(const std::string& p) const {
  if (!p.empty() && p[0] == '/') return p;
  // Relative to the guest's working directory (an O_PATH descriptor of
  // ours): the magic link under /proc/self/fd resolves to it.
  return "/proc/self/fd/" + std::to_string(fds_.host_dir(GuestFdTable::kAtFdcwd)) + "/" + p;
}

int64_t LinuxKernel::sys_statfs(bool by_fd, uint64_t what, uint64_t buf) {
  struct statfs hs {};
  if (by_fd) {
    const GuestFd* f = fds_.get(int(int32_t(what)));
    if (!f) return -EBADF;
    if (f->kind != GuestFd::Kind::Host) {
      // The emulated standard streams are pipes: pipefs.
      hs.f_type = 0x50495045;
      hs.f_bsize = 4096;
      hs.f_namelen = 255;
      hs.f_frsize = 4096;
    } else if (::fstatfs(f->host, &hs) < 0) {
      return -errno;
    }
  } else {
    std::string p;
    if (int64_t e = read_path(what, p); e < 0) return e;
    if (p.empty()) return -ENOENT;
    if (::statfs(host_path(p).c_str(), &hs) < 0) return -errno;
  }
  uint8_t bytes[kStatfsSize];
  std::memcpy(bytes, &hs, kStatfsSize);
  return copy_to_user(buf, bytes) ? 0 : -EFAULT;
}

int64_t LinuxKernel::sys_xattr(XattrCall kind, uint64_t target, uint64_t name_addr, uint64_t buf, uint64_t size) {
  const bool list = kind == XattrCall::List || kind == XattrCall::LList || kind == XattrCall::FList;
  const bool by_fd = kind == XattrCall::FGet || kind == XattrCall::FList;
  const bool nofollow = kind == XattrCall::LGet || kind == XattrCall::LList;
  std::string name;
  if (!list) {
    auto n = read_c_string(name_addr, kXattrNameMax + 1);
    if (!n) return mem_.accessible(name_addr, 1, kProtRead) ? -ERANGE : -EFAULT;
    if (n->empty()) return -ERANGE;
    name = std::move(*n);
  }
  std::vector<char> value(std::min(size, list ? kXattrListMax : kXattrSizeMax));
  ssize_t n = 0;
  if (by_fd) {
    const GuestFd* f = fds_.get(int(int32_t(target)));
    if (!f) return -EBADF;
    if (f->kind != GuestFd::Kind::Host) return list ? 0 : -ENODATA;  // pipes carry no attributes
    n = list ? ::flistxattr(f->host, value.data(), value.size())
             : ::fgetxattr(f->host, name.c_str(), value.data(), value.size());
  } else {
    std::string p;
    if (int64_t e = read_path(target, p); e < 0) return e;
    if (p.empty()) return -ENOENT;
    const std::string hp = host_path(p);
    if (list) n = nofollow ? ::llistxattr(hp.c_str(), value.data(), value.size())
                           : ::listxattr(hp.c_str(), value.data(), value.size());
    else n = nofollow ? ::lgetxattr(hp.c_str(), name.c_str(), value.data(), value.size())
                      : ::getxattr(hp.c_str(), name.c_str(), value.data(), value.size());
  }
  if (n < 0) return -errno;
  if (size == 0) return n;  // the size it would need, nothing written
  std::span<const uint8_t> out(reinterpret_cast<const uint8_t*>(value.data()), size_t(n));
  return copy_to_user(buf, out) ? n : -EFAULT;
}

}  // namespace ttd::rec
