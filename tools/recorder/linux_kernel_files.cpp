// Paths and descriptors on the host: open, stat, access, directories,
// fcntl, dup, pipes. These act on the host's file system as the program
// would natively (the recorder is not a sandbox); every result the guest
// sees in memory goes through copy_to_user and so into the trace, and
// replay never needs the files again.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tools/recorder/guest_proc_files.h"
#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

constexpr uint64_t kStatxSize = 256;  // struct statx, the same on every architecture

// open(2) flag bits where AArch64's values differ from x86-64's (the host).
struct FlagPair {
  uint64_t aarch64, x86_64;
};
constexpr FlagPair kAarch64OpenFlags[] = {
    {040000, 0200000},   // O_DIRECTORY
    {0100000, 0400000},  // O_NOFOLLOW
    {0200000, 040000},   // O_DIRECT
    {0400000, 0100000},  // O_LARGEFILE
};

}  // namespace

int64_t LinuxKernel::read_path(uint64_t addr, std::string& out) {
  auto s = read_c_string(addr, 4096);
  if (!s) return mem_.accessible(addr, 4096, kProtRead) ? -ENAMETOOLONG : -EFAULT;
  out = std::move(*s);
  // /proc/<the guest's pid> is the process's own directory: on the host
  // that pid is another process or none (procps looks itself up so: `ps`
  // failed with "lookup self"). The entries the recorder makes itself
  // (ProcSelfFiles::open) take /proc/self as well.
  const std::string own = "/proc/" + std::to_string(pid_);
  if (out.compare(0, own.size(), own) == 0 && (out.size() == own.size() || out[own.size()] == '/'))
    out.replace(0, own.size(), "/proc/self");
  if (!cfg_.sysroot.empty() && !out.empty() && out[0] == '/') {
    std::string under = cfg_.sysroot + out;
    if (::access(under.c_str(), F_OK) == 0) out = std::move(under);
  }
  return 0;
}

int LinuxKernel::host_open_flags(uint64_t guest_flags) const {
  if (arch_.id() != ArchId::AArch64) return int(guest_flags);
  uint64_t out = guest_flags;
  for (auto [a, x] : kAarch64OpenFlags) out &= ~a;
  for (auto [a, x] : kAarch64OpenFlags)
    if (guest_flags & a) out |= x;
  return int(out);
}

int64_t LinuxKernel::sys_openat(int dirfd, uint64_t path, uint64_t flags, uint64_t mode) {
  std::string p;
  if (int64_t e = read_path(path, p); e < 0) return e;
  if (p.empty()) return -ENOENT;
  int dir = fds_.host_dir(dirfd);
  if (dir < 0 && p[0] != '/') return dir;
  int host_flags = host_open_flags(flags);
  if (auto r = proc_self_.open(p, host_flags)) return *r;
  // The recorder never execs, but keep its descriptors from leaking anyway;
  // the guest's own close-on-exec bit is kept in the table.
  int h = ::openat(dir < 0 ? AT_FDCWD : dir, p.c_str(), host_flags | O_CLOEXEC, mode_t(mode & ~umask_ & 07777));
  if (h < 0) return -errno;
  GuestFd f;
  f.host = h;
  f.cloexec = (host_flags & O_CLOEXEC) != 0;
  // Absolute: the trace names mappings by their file, and readers take
  // only absolute names (a relative one means nothing outside the guest).
  std::string host_name = p[0] == '/' ? std::string() : host_fd_target(h);
  f.path = host_name.empty() || host_name[0] != '/' ? p : std::move(host_name);
  return fds_.add(std::move(f));
}

int64_t LinuxKernel::sys_memfd_create(uint64_t name, uint64_t flags) {
  // A host memfd: an anonymous regular file, which reads, writes, seeks,
  // ftruncate and mmap (shared_file_mappings.h) take as any host file.
  // MFD_CLOEXEC and MFD_ALLOW_SEALING; huge pages and MFD_EXEC/NOEXEC_SEAL
  // go to the host as given.
  auto n = read_c_string(name, 250);
  if (!n) return mem_.accessible(name, 250, kProtRead) ? -EINVAL : -EFAULT;  // (longer than 249: EINVAL)
  const int h = int(::syscall(SYS_memfd_create, n->c_str(), unsigned(flags) | MFD_CLOEXEC));
  if (h < 0) return -errno;
  GuestFd f;
  f.host = h;
  f.cloexec = (flags & MFD_CLOEXEC) != 0;
  f.path = "/memfd:" + *n + " (deleted)";  // as readlink of /proc/self/fd/N says
  return fds_.add(std::move(f));
}

int64_t LinuxKernel::sys_close(int fd) {
  // Closing a pipe end is a change its other end's edge-triggered epoll sees (hang-up).
  if (const GuestFd* f = fds_.get(fd)) note_pipe_change(*f);
  return fds_.close(fd);
}

int64_t LinuxKernel::sys_close_range(uint64_t first, uint64_t last, uint64_t flags) {
  // fs/file.c: unsigned int bounds; CLOSE_RANGE_UNSHARE (2) is about a
  // file table this process already has alone, CLOSE_RANGE_CLOEXEC (4)
  // marks instead of closing.
  constexpr uint64_t kUnshare = 2, kCloexec = 4;
  const uint32_t lo = uint32_t(first), hi = uint32_t(last);
  if ((flags & ~(kUnshare | kCloexec)) || lo > hi) return -EINVAL;
  for (int fd : fds_.open_in(lo, hi)) {
    if (flags & kCloexec) fds_.set_cloexec(fd, true);
    else sys_close(fd);
  }
  return 0;
}

int64_t LinuxKernel::sys_lseek(int fd, int64_t offset, uint64_t whence) {
  const GuestFd* f = fds_.get(fd);
  if (!f) return -EBADF;
  if (f->kind != GuestFd::Kind::Host) return -ESPIPE;  // the streams are pipes
  if (f->listing) return f->listing->seek(offset, int(whence));
  off_t r = ::lseek(f->host, offset, int(whence));
  return r < 0 ? -errno : int64_t(r);
}

int64_t LinuxKernel::sys_statx(int dirfd, uint64_t path, uint64_t flags, uint64_t mask, uint64_t buf) {
  std::string p;
  if (int64_t e = read_path(path, p); e < 0) return e;
  uint8_t out[kStatxSize] = {};
  const GuestFd* f = fds_.get(dirfd);
  // /proc/self/fd/N, /dev/fd/N, /dev/stdin...: the guest's descriptor N,
  // as an empty path on it (on the host, those name the recorder's).
  if (const ProcSelfPath what = proc_self_path(p, pid_);
      what.entry == ProcSelfEntry::Fd && !(flags & AT_SYMLINK_NOFOLLOW) && !what.thread_self && !what.tid) {
    f = fds_.get(what.fd);
    if (!f) return -ENOENT;
    if (f->kind == GuestFd::Kind::Host) {
      if (::syscall(SYS_statx, f->host, "", int(flags) | kAtEmptyPath, unsigned(mask), out) < 0) return -errno;
      return copy_to_user(buf, out) ? 0 : -EFAULT;
    }
    p.clear();
    flags |= kAtEmptyPath;
  }
  if (p.empty() && (flags & kAtEmptyPath) && f && f->kind != GuestFd::Kind::Host) {
    // The standard streams: a pipe, as fstat says; eventfd and epoll: an
    // anonymous inode (no file type).
    uint32_t basic = 0x7ff, blksize = 4096, nlink = 1, uid = getuid(), gid = getgid();
    uint16_t mode = f->kind == GuestFd::Kind::StdStream ? 0010600 : 0600;
    std::memcpy(out + 0, &basic, 4);
    std::memcpy(out + 4, &blksize, 4);
    std::memcpy(out + 16, &nlink, 4);
    std::memcpy(out + 20, &uid, 4);
    std::memcpy(out + 24, &gid, 4);
    std::memcpy(out + 28, &mode, 2);
    return copy_to_user(buf, out) ? 0 : -EFAULT;
  }
  int dir = fds_.host_dir(dirfd);
  if (dir < 0 && !(p.size() && p[0] == '/')) return dir;
  if (::syscall(SYS_statx, dir < 0 ? AT_FDCWD : dir, p.c_str(), int(flags), unsigned(mask), out) < 0) return -errno;
  return copy_to_user(buf, out) ? 0 : -EFAULT;
}

int64_t LinuxKernel::sys_faccessat(int dirfd, uint64_t path, uint64_t mode, uint64_t flags) {
  std::string p;
  int d = -1;
  if (int64_t e = host_at(dirfd, path, d, p); e < 0) return e;
  long r = ::syscall(SYS_faccessat2, d, p.c_str(), int(mode), int(flags));
  if (r < 0 && errno == ENOSYS && flags == 0) r = ::syscall(SYS_faccessat, d, p.c_str(), int(mode));
  return r < 0 ? -errno : 0;
}

int64_t LinuxKernel::sys_getdents64(int fd, uint64_t buf, uint64_t len) {
  const GuestFd* f = fds_.get(fd);
  if (!f) return -EBADF;
  if (f->kind != GuestFd::Kind::Host) return -ENOTDIR;
  // struct linux_dirent64 is the same on every architecture.
  std::vector<uint8_t> data;
  if (f->listing) {
    const int64_t n = f->listing->read(std::min(len, kMaxIo), data);
    if (n <= 0) return n;
    return copy_to_user(buf, data) ? n : -EFAULT;
  }
  data.resize(std::min(len, kMaxIo));
  long n = ::syscall(SYS_getdents64, f->host, data.data(), data.size());
  if (n < 0) return -errno;
  data.resize(size_t(n));
  return copy_to_user(buf, data) ? n : -EFAULT;
}

int64_t LinuxKernel::sys_getcwd(uint64_t buf, uint64_t size) {
  std::string cwd = fds_.cwd();
  if (size < cwd.size() + 1) return -ERANGE;
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(cwd.c_str()), cwd.size() + 1);
  return copy_to_user(buf, bytes) ? int64_t(bytes.size()) : -EFAULT;
}

int64_t LinuxKernel::sys_chdir(uint64_t path) {
  std::string p;
  if (int64_t e = read_path(path, p); e < 0) return e;
  if (p.empty()) return -ENOENT;
  int dir = fds_.host_dir(GuestFdTable::kAtFdcwd);
  int h = ::openat(dir < 0 ? AT_FDCWD : dir, p.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (h < 0) return -errno;
  return fds_.chdir_to(h);
}

int64_t LinuxKernel::sys_fchdir(int fd) {
  const GuestFd* f = fds_.get(fd);
  if (!f) return -EBADF;
  if (f->kind != GuestFd::Kind::Host) return -ENOTDIR;
  struct stat st {};
  if (::fstat(f->host, &st) < 0) return -errno;
  if (!S_ISDIR(st.st_mode)) return -ENOTDIR;
  int h = ::fcntl(f->host, F_DUPFD_CLOEXEC, 0);
  if (h < 0) return -errno;
  return fds_.chdir_to(h);
}

int64_t LinuxKernel::sys_fcntl(int fd, uint64_t cmd, uint64_t arg) {
  const GuestFd* f = fds_.get(fd);
  if (!f) return -EBADF;
  switch (cmd) {
    case F_DUPFD: return fds_.dup(fd, int(arg), false);
    case F_DUPFD_CLOEXEC: return fds_.dup(fd, int(arg), true);
    case F_GETFD: return f->cloexec ? FD_CLOEXEC : 0;
    case F_SETFD: return fds_.set_cloexec(fd, arg & FD_CLOEXEC);
    case F_GETFL: {
      if (f->kind == GuestFd::Kind::StdStream) return f->stream == 0 ? O_RDONLY : O_WRONLY;
      // O_NONBLOCK has the same value on x86-64 and AArch64.
      if (f->eventfd) return O_RDWR | (f->eventfd->nonblocking() ? O_NONBLOCK : 0);  // eventfd, timerfd
      if (f->kind == GuestFd::Kind::Epoll) return O_RDWR;
      int r = ::fcntl(f->host, F_GETFL);
      if (r < 0) return -errno;
      if (arch_.id() == ArchId::AArch64) {
        uint64_t out = uint64_t(r);
        for (auto [a, x] : kAarch64OpenFlags) out &= ~x;
        for (auto [a, x] : kAarch64OpenFlags)
          if (uint64_t(r) & x) out |= a;
        return int64_t(out);
      }
      return r;
    }
    case F_SETFL:
      if (f->eventfd) f->eventfd->set_nonblocking(arg & O_NONBLOCK);
      if (f->kind != GuestFd::Kind::Host) return 0;
      return ::fcntl(f->host, F_SETFL, host_open_flags(arg)) < 0 ? -errno : 0;
    case F_GETLK:
    case F_SETLK:
    case F_SETLKW:
    case F_OFD_GETLK:
    case F_OFD_SETLK:
    case F_OFD_SETLKW: {
      if (f->kind != GuestFd::Kind::Host) return -EINVAL;
      // struct flock is the same on 64-bit x86 and AArch64.
      struct flock fl {};
      uint8_t raw[sizeof fl];
      if (!copy_from_user(arg, raw)) return -EFAULT;
      std::memcpy(&fl, raw, sizeof fl);
      if (::fcntl(f->host, int(cmd), &fl) < 0) return -errno;
      if (cmd == F_GETLK || cmd == F_OFD_GETLK) {
        std::memcpy(raw, &fl, sizeof fl);
        if (!copy_to_user(arg, raw)) return -EFAULT;
      }
      return 0;
    }
    default:
      note_unsupported(current_, "fcntl command " + std::to_string(cmd));
      return -EINVAL;
  }
}

int64_t LinuxKernel::sys_pipe2(uint64_t fds, uint64_t flags) {
  int host[2];
  if (::pipe2(host, O_CLOEXEC | int(host_open_flags(flags) & O_NONBLOCK)) < 0) return -errno;
  GuestFd r, w;
  r.host = host[0];
  w.host = host[1];
  r.cloexec = w.cloexec = (flags & O_CLOEXEC) != 0;
  r.path = w.path = "[pipe]";
  r.pipe = w.pipe = true;
  r.pipe_id = w.pipe_id = next_pipe_id_++;
  int gr = fds_.add(std::move(r));
  if (gr < 0) {
    ::close(host[1]);
    return gr;
  }
  int gw = fds_.add(std::move(w));
  if (gw < 0) {
    fds_.close(gr);
    return gw;
  }
  if (!put_u32s(fds, {uint32_t(gr), uint32_t(gw)})) {
    fds_.close(gr);
    fds_.close(gw);
    return -EFAULT;
  }
  return 0;
}

int64_t LinuxKernel::sys_unlinkat(int dirfd, uint64_t path, uint64_t flags) {
  std::string p;
  int dir = -1;
  if (int64_t e = host_at(dirfd, path, dir, p); e < 0) return e;
  return ::unlinkat(dir, p.c_str(), int(flags & AT_REMOVEDIR)) < 0 ? -errno : 0;
}

}  // namespace ttd::rec
