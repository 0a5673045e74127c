// Calls that change the file system: directories, renames, links, modes,
// owners, sizes, times, syncing and in-kernel copies. They act on the host
// as the program would natively (the recorder is not a sandbox) and touch
// no guest memory except the offsets copy_file_range and sendfile update,
// so the trace holds only their results. Before, they were -ENOSYS: `git
// status` could not rename its index lock, `cp` had no copy_file_range,
// `mkdir`, `mv`, `touch`, `tar x` and `sed -i` failed.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

int64_t result(int64_t r) { return r < 0 ? -errno : r; }

int32_t as_int(uint64_t v) { return int32_t(uint32_t(v)); }

constexpr int64_t kNotAFile = INT64_MIN;

}  // namespace

// A (dirfd, path) pair as the host's: the guest's directory descriptor (or
// its working directory) and the path read from guest memory. An absolute
// path needs no directory.
int64_t LinuxKernel::host_at(int dirfd, uint64_t path_addr, int& dir, std::string& path) {
  if (int64_t e = read_path(path_addr, path); e < 0) return e;
  dir = fds_.host_dir(dirfd);
  if (dir < 0) {
    if (!path.empty() && path[0] == '/') dir = AT_FDCWD;
    else return dir;
  }
  return 0;
}

// The host descriptor behind a guest fd (>= 0), -EBADF when closed, or
// kNotAFile for the recorder's own objects (standard streams, eventfds,
// epoll sets), which each call answers as Linux does for a pipe or an
// anonymous inode.
int64_t LinuxKernel::host_fd_for_change(uint64_t guest_fd) {
  const GuestFd* f = fds_.get(as_int(guest_fd));
  if (!f) return -EBADF;
  return f->kind == GuestFd::Kind::Host ? f->host : kNotAFile;
}

int64_t LinuxKernel::sys_fs_change(Sys sys, const uint64_t a[6]) {
  constexpr int kCwd = GuestFdTable::kAtFdcwd;
  int dir = -1, dir2 = -1;
  std::string p, p2;
  auto at = [&](int dirfd, uint64_t addr) { return host_at(dirfd, addr, dir, p); };
  auto at2 = [&](int dirfd, uint64_t addr) { return host_at(dirfd, addr, dir2, p2); };
  int64_t e = 0;
  switch (sys) {
    case Sys::Mkdir: return (e = at(kCwd, a[0])) < 0 ? e : result(::mkdirat(dir, p.c_str(), mode_t(a[1])));
    case Sys::Mkdirat: return (e = at(as_int(a[0]), a[1])) < 0 ? e : result(::mkdirat(dir, p.c_str(), mode_t(a[2])));
    case Sys::Rmdir: return sys_unlinkat(kCwd, a[0], AT_REMOVEDIR);
    case Sys::Mknod:
      return (e = at(kCwd, a[0])) < 0 ? e : result(::mknodat(dir, p.c_str(), mode_t(a[1]), dev_t(a[2])));
    case Sys::Mknodat:
      return (e = at(as_int(a[0]), a[1])) < 0 ? e : result(::mknodat(dir, p.c_str(), mode_t(a[2]), dev_t(a[3])));
    case Sys::Rename:
      if ((e = at(kCwd, a[0])) < 0 || (e = at2(kCwd, a[1])) < 0) return e;
      return result(::renameat(dir, p.c_str(), dir2, p2.c_str()));
    case Sys::Renameat:
    case Sys::Renameat2:
      if ((e = at(as_int(a[0]), a[1])) < 0 || (e = at2(as_int(a[2]), a[3])) < 0) return e;
      return result(::renameat2(dir, p.c_str(), dir2, p2.c_str(), sys == Sys::Renameat2 ? unsigned(a[4]) : 0));
    case Sys::Link:
      if ((e = at(kCwd, a[0])) < 0 || (e = at2(kCwd, a[1])) < 0) return e;
      return result(::linkat(dir, p.c_str(), dir2, p2.c_str(), 0));
    case Sys::Linkat:
      if ((e = at(as_int(a[0]), a[1])) < 0 || (e = at2(as_int(a[2]), a[3])) < 0) return e;
      return result(::linkat(dir, p.c_str(), dir2, p2.c_str(), int(a[4])));
    case Sys::Symlink:
    case Sys::Symlinkat: {
      // The target is stored as written, not resolved.
      auto target = read_c_string(a[0], 4096);
      if (!target) return -EFAULT;
      const int dirfd = sys == Sys::Symlink ? kCwd : as_int(a[1]);
      if ((e = at(dirfd, sys == Sys::Symlink ? a[1] : a[2])) < 0) return e;
      return result(::symlinkat(target->c_str(), dir, p.c_str()));
    }
    case Sys::Chmod: return (e = at(kCwd, a[0])) < 0 ? e : result(::fchmodat(dir, p.c_str(), mode_t(a[1]), 0));
    case Sys::Fchmodat:
      return (e = at(as_int(a[0]), a[1])) < 0 ? e : result(::fchmodat(dir, p.c_str(), mode_t(a[2]), 0));
    case Sys::Chown:
    case Sys::Lchown:
      if ((e = at(kCwd, a[0])) < 0) return e;
      return result(::fchownat(dir, p.c_str(), uid_t(uint32_t(a[1])), gid_t(uint32_t(a[2])),
                               sys == Sys::Lchown ? AT_SYMLINK_NOFOLLOW : 0));
    case Sys::Fchownat:
      if ((e = at(as_int(a[0]), a[1])) < 0) return e;
      return result(::fchownat(dir, p.c_str(), uid_t(uint32_t(a[2])), gid_t(uint32_t(a[3])), int(a[4])));
    case Sys::Truncate: return (e = at(kCwd, a[0])) < 0 ? e : result(::truncate(host_path(p).c_str(), off_t(a[1])));
    case Sys::Creat:
      // open(path, O_CREAT | O_WRONLY | O_TRUNC, mode); creat is x86-64's only.
      return sys_openat(kCwd, a[0], 0100 | 01 | 01000, a[1]);
    case Sys::Utimensat: {
      uint8_t times[32];
      const bool given = a[2] != 0;
      if (given && !copy_from_user(a[2], times)) return -EFAULT;
      struct timespec ts[2];
      if (given) std::memcpy(ts, times, sizeof ts);
      if (a[1] == 0) {  // a NULL path: the times of dirfd's own file (futimens)
        const int64_t h = host_fd_for_change(a[0]);
        if (h == kNotAFile) return -EINVAL;
        return h < 0 ? h : result(::futimens(int(h), given ? ts : nullptr));
      }
      if ((e = at(as_int(a[0]), a[1])) < 0) return e;
      return result(::utimensat(dir, p.c_str(), given ? ts : nullptr, int(a[3])));
    }
    case Sys::Fchmod: {
      const int64_t h = host_fd_for_change(a[0]);
      if (h == kNotAFile) return 0;  // a pipe's mode is not kept: success
      return h < 0 ? h : result(::fchmod(int(h), mode_t(a[1])));
    }
    case Sys::Fchown: {
      const int64_t h = host_fd_for_change(a[0]);
      if (h == kNotAFile) return 0;
      return h < 0 ? h : result(::fchown(int(h), uid_t(uint32_t(a[1])), gid_t(uint32_t(a[2]))));
    }
    case Sys::Ftruncate: {
      const int64_t h = host_fd_for_change(a[0]);
      if (h == kNotAFile) return -EINVAL;
      if (h < 0) return h;
      // The bytes it cuts off or adds (zeros) reach the file's mappings.
      struct stat st {};
      const GuestFd* f = fds_.get(int(int32_t(a[0])));
      const uint64_t old_size = f && ::fstat(int(h), &st) == 0 ? uint64_t(st.st_size) : a[1];
      const uint64_t changed = old_size > a[1] ? old_size - a[1] : a[1] - old_size;
      std::optional<MappedFileWrite> mapped =
          changed ? mapped_write_begins(*f, std::min(old_size, a[1]), changed) : std::nullopt;
      const int64_t r = result(::ftruncate(int(h), off_t(a[1])));
      if (mapped) mapped_write_ends(*mapped, r == 0 ? int64_t(changed) : -1);
      return r;
    }
    case Sys::Fallocate: {
      const int64_t h = host_fd_for_change(a[0]);
      if (h == kNotAFile) return -ESPIPE;
      return h < 0 ? h : result(::fallocate(int(h), int(a[1]), off_t(a[2]), off_t(a[3])));
    }
    case Sys::Fsync:
    case Sys::Fdatasync: {
      const int64_t h = host_fd_for_change(a[0]);
      if (h == kNotAFile) return -EINVAL;
      return h < 0 ? h : result(sys == Sys::Fsync ? ::fsync(int(h)) : ::fdatasync(int(h)));
    }
    case Sys::Syncfs: {
      const int64_t h = host_fd_for_change(a[0]);
      if (h == kNotAFile) return 0;
      return h < 0 ? h : result(::syncfs(int(h)));
    }
    case Sys::Sync: ::sync(); return 0;
    case Sys::Flock: {
      const int64_t h = host_fd_for_change(a[0]);
      if (h == kNotAFile) return 0;  // Linux locks a pipe too; nobody else can see ours
      return h < 0 ? h : result(::flock(int(h), int(a[1])));
    }
    case Sys::CopyFileRange:
    case Sys::Sendfile: return sys_copy_between_files(sys, a);
    case Sys::Setxattr:
    case Sys::Lsetxattr:
    case Sys::Fsetxattr:
    case Sys::Removexattr:
    case Sys::Lremovexattr:
    case Sys::Fremovexattr: return sys_change_xattr(sys, a);
    default: return -ENOSYS;
  }
}

// copy_file_range(in, &off_in, out, &off_out, len, flags) and
// sendfile(out, in, &offset, count) between host files. Offsets the guest
// passes are read from its memory and written back as Linux updates them.
// A standard stream, eventfd or epoll set on either side: EINVAL, as for a
// file these calls cannot use; programs then copy with read and write.
int64_t LinuxKernel::sys_copy_between_files(Sys sys, const uint64_t a[6]) {
  const bool cfr = sys == Sys::CopyFileRange;
  const uint64_t in_fd = cfr ? a[0] : a[1], out_fd = cfr ? a[2] : a[0];
  const uint64_t in_off = cfr ? a[1] : a[2], out_off = cfr ? a[3] : 0;
  const size_t len = size_t(cfr ? a[4] : a[3]);
  const int64_t in = host_fd_for_change(in_fd), out = host_fd_for_change(out_fd);
  if (in == kNotAFile || out == kNotAFile) return in == -EBADF || out == -EBADF ? -EBADF : -EINVAL;
  if (in < 0) return in;
  if (out < 0) return out;
  auto read_off = [&](uint64_t addr, loff_t& v) {
    uint8_t b[8];
    if (!copy_from_user(addr, b)) return false;
    std::memcpy(&v, b, 8);
    return true;
  };
  loff_t off_in = 0, off_out = 0;
  if (in_off && !read_off(in_off, off_in)) return -EFAULT;
  if (out_off && !read_off(out_off, off_out)) return -EFAULT;
  // As read and write: the source gets the program's stores through its
  // shared mappings first, the destination's mappings see the bytes.
  const GuestFd* source = fds_.get(int(int32_t(in_fd)));
  const GuestFd* dest = fds_.get(int(int32_t(out_fd)));
  if (source) mapped_read_begins(*source);
  std::optional<MappedFileWrite> mapped =
      dest ? mapped_write_begins(*dest, out_off ? std::optional<uint64_t>(uint64_t(off_out)) : std::nullopt, len)
           : std::nullopt;
  const ssize_t n = cfr ? ::copy_file_range(int(in), in_off ? &off_in : nullptr, int(out),
                                            out_off ? &off_out : nullptr, len, unsigned(a[5]))
                        : ::sendfile(int(out), int(in), in_off ? &off_in : nullptr, len);
  const int err = errno;
  if (mapped) mapped_write_ends(*mapped, n);
  if (n < 0) return -err;
  if (in_off && !put_u64s(in_off, {uint64_t(off_in)})) return -EFAULT;
  if (out_off && !put_u64s(out_off, {uint64_t(off_out)})) return -EFAULT;
  return n;
}

}  // namespace ttd::rec
