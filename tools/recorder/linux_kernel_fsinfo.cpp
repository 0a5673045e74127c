// File-system information on the host: statfs / fstatfs and extended
// attributes (getxattr, lgetxattr, fgetxattr, the list forms, and setting
// and removing them). `ls -l` asks for ACLs and SELinux labels, `find` and `ls` for the
// file-system type; these answer as the host does, and what the guest sees
// travels in the trace as the call's memory writes.
#include <fcntl.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

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

int64_t xattr_result(int r) { return r < 0 ? -errno : r; }

}  // namespace

// An attribute's name from guest memory: ERANGE when empty or longer than
// XATTR_NAME_MAX, EFAULT when unreadable.
int64_t LinuxKernel::read_xattr_name(uint64_t addr, std::string& out) {
  auto n = read_c_string(addr, kXattrNameMax + 1);
  if (!n) return mem_.accessible(addr, 1, kProtRead) ? -ERANGE : -EFAULT;
  if (n->empty()) return -ERANGE;
  out = std::move(*n);
  return 0;
}

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
  if (!list)
    if (int64_t e = read_xattr_name(name_addr, name); e < 0) return e;
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

// setxattr(path, name, value, size, flags) and removexattr(path, name),
// by path, by path without following a link, and by fd: sed -i and cp -p
// copy a file's ACL to the new one. A pipe (standard stream) takes none:
// EPERM for user.* (only regular files and directories may have them),
// EOPNOTSUPP for the rest, as Linux answers for pipefs.
int64_t LinuxKernel::sys_change_xattr(Sys sys, const uint64_t a[6]) {
  const bool set = sys == Sys::Setxattr || sys == Sys::Lsetxattr || sys == Sys::Fsetxattr;
  std::string name;
  if (int64_t e = read_xattr_name(a[1], name); e < 0) return e;
  std::vector<uint8_t> value;
  if (set) {
    if (a[3] > kXattrSizeMax) return -E2BIG;
    value.resize(size_t(a[3]));
    if (!value.empty() && !copy_from_user(a[2], value)) return -EFAULT;
  }
  const int flags = set ? int(a[4]) : 0;
  if (sys == Sys::Fsetxattr || sys == Sys::Fremovexattr) {
    const GuestFd* f = fds_.get(int(int32_t(a[0])));
    if (!f) return -EBADF;
    if (f->kind != GuestFd::Kind::Host) return name.rfind("user.", 0) == 0 ? -EPERM : -EOPNOTSUPP;
    const int h = f->host;
    return xattr_result(set ? ::fsetxattr(h, name.c_str(), value.data(), value.size(), flags)
                      : ::fremovexattr(h, name.c_str()));
  }
  std::string p;
  if (int64_t e = read_path(a[0], p); e < 0) return e;
  if (p.empty()) return -ENOENT;
  const std::string hp = host_path(p);
  switch (sys) {
    case Sys::Setxattr: return xattr_result(::setxattr(hp.c_str(), name.c_str(), value.data(), value.size(), flags));
    case Sys::Lsetxattr: return xattr_result(::lsetxattr(hp.c_str(), name.c_str(), value.data(), value.size(), flags));
    case Sys::Removexattr: return xattr_result(::removexattr(hp.c_str(), name.c_str()));
    default: return xattr_result(::lremovexattr(hp.c_str(), name.c_str()));
  }
}

}  // namespace ttd::rec
