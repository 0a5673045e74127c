// User and group ids. The recorder is not a sandbox: the program opens
// host files with the recorder's credentials, so its ids are the
// recorder's, and a change it makes (a server dropping root, glibc's
// posix_spawn with POSIX_SPAWN_RESETIDS as make uses it) changes the
// recorder's, through glibc's wrappers so every recorder thread follows as
// Linux's process-wide semantics (nptl's setxid) want. Before, the set
// calls were -ENOSYS: make's posix_spawn child exited 127 ("Error 127").
#include <grp.h>
#include <sys/syscall.h>
#include <sys/fsuid.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

// -1 (as a 32-bit id) means "leave it" to the set*id calls.
uid_t id_arg(uint64_t v) { return uid_t(uint32_t(v)); }

int64_t result(int r) { return r < 0 ? -errno : r; }

}  // namespace

int64_t LinuxKernel::sys_credentials(Sys sys, const uint64_t a[6]) {
  switch (sys) {
    case Sys::Getresuid:
    case Sys::Getresgid: {
      uid_t r = 0, e = 0, s = 0;
      if (sys == Sys::Getresuid) ::getresuid(&r, &e, &s);
      else ::getresgid(&r, &e, &s);
      return put_u32s(a[0], {r}) && put_u32s(a[1], {e}) && put_u32s(a[2], {s}) ? 0 : -EFAULT;
    }
    case Sys::Setuid: return result(::setuid(id_arg(a[0])));
    case Sys::Setgid: return result(::setgid(id_arg(a[0])));
    case Sys::Setreuid: return result(::setreuid(id_arg(a[0]), id_arg(a[1])));
    case Sys::Setregid: return result(::setregid(id_arg(a[0]), id_arg(a[1])));
    case Sys::Setresuid: return result(::setresuid(id_arg(a[0]), id_arg(a[1]), id_arg(a[2])));
    case Sys::Setresgid: return result(::setresgid(id_arg(a[0]), id_arg(a[1]), id_arg(a[2])));
    // These return the previous id, never an error.
    case Sys::Setfsuid: return ::setfsuid(id_arg(a[0]));
    case Sys::Setfsgid: return ::setfsgid(id_arg(a[0]));
    case Sys::Getgroups: {
      const int size = int(int32_t(a[0]));
      if (size < 0) return -EINVAL;
      const int n = ::getgroups(0, nullptr);
      if (n < 0) return -errno;
      if (size == 0) return n;
      if (size < n) return -EINVAL;
      std::vector<gid_t> list(size_t(n) + 1);
      const int got = ::getgroups(n, list.data());
      if (got < 0) return -errno;
      const auto* bytes = reinterpret_cast<const uint8_t*>(list.data());
      return copy_to_user(a[1], std::span<const uint8_t>(bytes, size_t(got) * sizeof(gid_t))) ? got : -EFAULT;
    }
    case Sys::Setgroups: {
      const uint64_t n = a[0];
      if (n > 65536) return -EINVAL;  // NGROUPS_MAX
      std::vector<gid_t> list(n);
      auto* bytes = reinterpret_cast<uint8_t*>(list.data());
      if (n && !copy_from_user(a[1], std::span<uint8_t>(bytes, n * sizeof(gid_t)))) return -EFAULT;
      return result(::setgroups(n, list.data()));
    }
    case Sys::Capget: return sys_capget(a[0], a[1]);
    default: return -ENOSYS;
  }
}

// capget(header, data): the recorder's capabilities (node asks whether it
// holds only CAP_NET_BIND_SERVICE). The header's version decides how many
// 12-byte data structs follow (v1: one, v2 and v3: two).
int64_t LinuxKernel::sys_capget(uint64_t header, uint64_t data) {
  uint8_t h[8];
  if (!copy_from_user(header, h)) return -EFAULT;
  uint32_t version = 0;
  int32_t pid = 0;
  std::memcpy(&version, h, 4);
  std::memcpy(&pid, h + 4, 4);
  if (pid < 0) return -EINVAL;
  if (pid != 0 && uint64_t(pid) != pid_) return -ESRCH;  // another process: not ours to ask
  struct {
    uint32_t version;
    int pid;
  } host_header{version, 0};
  uint32_t caps[6] = {};
  const int64_t r = ::syscall(SYS_capget, &host_header, data ? caps : nullptr) < 0 ? -errno : 0;
  // An unknown version comes back as the preferred one (with EINVAL, or
  // with 0 when data is NULL: how programs ask which version to use).
  if (host_header.version != version && !put_u32s(header, {host_header.version})) return -EFAULT;
  if (r < 0 || !data) return r;
  const size_t structs = version == 0x19980330 ? 1 : 2;  // _LINUX_CAPABILITY_VERSION_1
  std::span<const uint8_t> out(reinterpret_cast<const uint8_t*>(caps), structs * 12);
  return copy_to_user(data, out) ? 0 : -EFAULT;
}

}  // namespace ttd::rec
