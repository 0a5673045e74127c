// Reading and writing descriptors. Guest fds 0-2 start as emulated standard
// streams: pipe-like (fstat S_IFIFO, ioctl ENOTTY) so the C library buffers
// output the same way every run, stdin from RecordOptions or the
// recorder's stdin, output to the recorder's or captured. Other fds are
// host descriptors (linux_kernel_files.cpp opens them); what the guest
// reads from them travels in the trace as the syscall's memory writes.
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tools/recorder/host_fd_ready.h"
#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

constexpr uint64_t kSIfifo = 0010000;

bool nonblocking(int host) {
  int fl = ::fcntl(host, F_GETFL);
  return fl < 0 || (fl & O_NONBLOCK);
}

// A read or write on a pipe end, never blocking the recorder: only the
// guest thread waits (LinuxKernel::blocks), so once it runs again the pipe
// is ready and this transfers what fits, as Linux does for a read; a
// write larger than the room left returns short where Linux would wait
// for the rest (the C library and most programs loop on short writes).
ssize_t pipe_transfer(bool write, int host, void* data, size_t len) {
  const int fl = ::fcntl(host, F_GETFL);
  const bool toggle = fl >= 0 && !(fl & O_NONBLOCK);
  if (toggle) ::fcntl(host, F_SETFL, fl | O_NONBLOCK);
  ssize_t n = write ? ::write(host, data, len) : ::read(host, data, len);
  const int err = errno;
  if (toggle) ::fcntl(host, F_SETFL, fl);
  errno = err;
  return n;
}

// FUTEX_WAIT or FUTEX_WAIT_BITSET (whatever the private and clock flags).
bool is_plain_futex_wait(uint64_t op) {
  const uint64_t cmd = op & 127;
  return cmd == 0 || cmd == 9;
}

}  // namespace

bool LinuxKernel::blocks(uint64_t number, const uint64_t a[6], uint64_t steps) {
  effects_.clear();
  steps += clock_ahead_;  // the virtual clock: a wait's start and timeout are on it
  now_ = std::max(now_, steps);
  const Sys sys = arch_.syscalls().lookup(number).sys;
  // A fork's child with one thread is not recorded: its pipe and socket
  // calls block on the host; a wait for a signal, for time or on a futex
  // parks (RecordingSession::wait_in_child: only a timeout or a signal
  // can end a private futex wait there, and a wait nothing can end is
  // reported; until 2026-11-29 an untimed one answered EAGAIN at once).
  // (AArch64's pause() is a ppoll of no descriptor.)
  const bool no_fds = ((sys == Sys::Poll || sys == Sys::Ppoll) && a[1] == 0) ||
                      ((sys == Sys::Select || sys == Sys::Pselect6) && a[0] == 0);
  const bool futex_wait = sys == Sys::Futex && is_plain_futex_wait(a[1]);
  if (child_waits_on_host() && sys != Sys::RtSigsuspend && sys != Sys::Pause && sys != Sys::RtSigtimedwait &&
      sys != Sys::Nanosleep && sys != Sys::ClockNanosleep && !no_fds && !futex_wait)
    return false;
  // Woken by a signal: the call answers EINTR (linux_kernel_signals.cpp).
  if (signals_.interrupted(threads_.current().number) && sys != Sys::RtSigtimedwait) return false;
  switch (sys) {
    case Sys::RtSigsuspend: return sigsuspend_blocks(a);
    case Sys::Pause: return pause_blocks();
    case Sys::RtSigtimedwait: return sigtimedwait_blocks(a);
    case Sys::Futex: return futexes_.blocks(a);
    case Sys::Nanosleep:
    case Sys::ClockNanosleep: return sleep_blocks(sys, a, steps);
    case Sys::Read: return io_blocks(false, int(int32_t(a[0])), a[1], a[2], false);
    case Sys::Readv: return io_blocks(false, int(int32_t(a[0])), a[1], a[2], true);
    case Sys::Write: return io_blocks(true, int(int32_t(a[0])), a[1], a[2], false);
    case Sys::Writev: return io_blocks(true, int(int32_t(a[0])), a[1], a[2], true);
    case Sys::Poll:
    case Sys::Ppoll:
    case Sys::Select:
    case Sys::Pselect6:
    case Sys::EpollWait:
    case Sys::EpollPwait:
    case Sys::EpollPwait2: return polls_.blocks(sys, a, steps);
    case Sys::Wait4:
    case Sys::Waitid: return wait_blocks(sys, a, steps);
    case Sys::Accept:
    case Sys::Accept4:
    case Sys::Connect:
    case Sys::Sendto:
    case Sys::Recvfrom:
    case Sys::Sendmsg:
    case Sys::Recvmsg:
    case Sys::Sendmmsg:
    case Sys::Recvmmsg: return sockets_.blocks(sys, a);
    default: return false;
  }
}

bool LinuxKernel::io_blocks(bool write, int fd, uint64_t buf, uint64_t count, bool vectored) {
  const GuestFd* f = fds_.get(fd);
  // (readv/writev of an eventfd do not wait: the first part answers.)
  if (f && f->kind == GuestFd::Kind::Eventfd && !vectored) return eventfd_blocks(write, fd, *f, buf, count);
  // A timerfd's read waits for its counter of expirations (process_timers_timerfd.cpp).
  if (f && f->kind == GuestFd::Kind::Timerfd && !vectored) return !write && eventfd_blocks(false, fd, *f, buf, count);
  // Pipes the guest made: their other end is the guest's too, so whether
  // they are ready depends on its threads alone (deterministic). Sockets
  // wait the same way (socket_calls.cpp), and so do descriptors
  // another process makes ready (the host's stdin, a FIFO, a terminal:
  // outside_fds.h). Files are always ready.
  if (!f || count == 0) return false;
  if (!(f->kind == GuestFd::Kind::Host && (f->pipe || f->socket)))
    return f->kind == GuestFd::Kind::Host || f->kind == GuestFd::Kind::StdStream ? outside_.io_blocks(write, fd, *f)
                                                                                 : false;
  if (f->socket && child_waits_on_host()) return false;  // a fork's child blocks on the host
  const short events = write ? POLLOUT : POLLIN;
  if (host_ready(f->host, events) || nonblocking(f->host)) return false;
  threads_.wait_io(IoWatch{fd, f->host, events, nullptr, f->socket_outside});
  return true;
}

void LinuxKernel::wake_io_waiters() {
  if (!threads_.any_io_waiter()) return;
  threads_.make_io_ready([](const IoWatch& w) {
    if (!w.eventfd) return host_ready(w.host_fd, w.events);
    return ((w.events & POLLIN) && w.eventfd->readable()) || ((w.events & POLLOUT) && w.eventfd->writable());
  });
}

int64_t LinuxKernel::sys_read(int fd, uint64_t buf, uint64_t len) {
  const GuestFd* f = fds_.get(fd);
  if (!f) return -EBADF;
  if (f->kind == GuestFd::Kind::Eventfd || f->kind == GuestFd::Kind::Timerfd) return eventfd_transfer(false, *f, buf, len);
  if (f->kind == GuestFd::Kind::Epoll) return -EINVAL;
  len = std::min(len, kMaxIo);
  std::vector<uint8_t> data;
  if (f->kind == GuestFd::Kind::Host) {
    data.resize(len);
    // (A fork's child waits on the host: it has no other threads.)
    const bool child = child_waits_on_host();
    const bool park = (f->pipe || f->socket) && !child;
    // (A file is always ready; a FIFO or terminal was waited for in
    // blocks(), unless the call restarts after a signal from outside. A
    // fork's child waits for its pipes and sockets here, so its timers
    // and signals from outside end the wait: until 2026-11-29 it blocked
    // in read(2), and an alarm() in the child never came.)
    if (child ? (f->pipe || f->socket || f->outside) : f->outside)
      if (const int64_t e = wait_host_ready(f->host, POLLIN)) return e;  // a timer or a signal came first
    mapped_read_begins(*f);
    ssize_t n = park ? pipe_transfer(false, f->host, data.data(), len) : ::read(f->host, data.data(), len);
    if (n < 0) return -errno;
    if (n > 0) note_pipe_change(*f);
    data.resize(size_t(n));
  } else if (f->stream != 0) {
    return -EINVAL;  // reading stdout / stderr
  } else if (cfg_.stdin_data) {
    size_t n = std::min<size_t>(len, cfg_.stdin_data->size() - stdin_pos_);
    data.assign(cfg_.stdin_data->begin() + stdin_pos_, cfg_.stdin_data->begin() + stdin_pos_ + n);
    stdin_pos_ += n;
  } else {
    if (const int64_t e = wait_host_ready(0, POLLIN)) return e;  // a timer or a signal came first
    data.resize(len);
    ssize_t n = ::read(0, data.data(), len);
    if (n < 0) return -errno;
    data.resize(size_t(n));
  }
  if (!copy_to_user(buf, data)) return -EFAULT;
  return int64_t(data.size());
}

int64_t LinuxKernel::sys_write(int fd, uint64_t buf, uint64_t len) {
  const GuestFd* f = fds_.get(fd);
  if (!f) return -EBADF;
  if (f->kind == GuestFd::Kind::StdStream && f->stream == 0) return -EINVAL;  // writing stdin
  if (f->kind == GuestFd::Kind::Eventfd) return eventfd_transfer(true, *f, buf, len);
  if (f->kind == GuestFd::Kind::Timerfd) return -EINVAL;  // no write method
  if (f->kind == GuestFd::Kind::Epoll) return -EINVAL;
  len = std::min(len, kMaxIo);
  std::vector<uint8_t> data(len);
  if (!copy_from_user(buf, data)) return -EFAULT;
  if (f->kind == GuestFd::Kind::Host) {
    const bool child = child_waits_on_host();
    const bool park = (f->pipe || f->socket) && !child;
    if (child && (f->pipe || f->socket || f->outside))  // as for a read, above
      if (const int64_t e = wait_host_ready(f->host, POLLOUT)) return e;
    std::optional<MappedFileWrite> mapped = mapped_write_begins(*f, std::nullopt, data.size());
    ssize_t n = park ? pipe_transfer(true, f->host, data.data(), data.size())
                     : ::write(f->host, data.data(), data.size());
    const int err = errno;
    if (mapped) mapped_write_ends(*mapped, n);
    if (n > 0) note_pipe_change(*f);
    return n < 0 ? -err : int64_t(n);
  }
  if (cfg_.capture_output) {
    out_[f->stream - 1].append(data.begin(), data.end());
  } else {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::write(f->stream, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return done ? int64_t(done) : -errno;
      done += size_t(n);
    }
  }
  return int64_t(len);
}

int64_t LinuxKernel::sys_pread(bool write, int fd, uint64_t buf, uint64_t len, int64_t offset) {
  const GuestFd* f = fds_.get(fd);
  if (!f) return -EBADF;
  if (f->kind != GuestFd::Kind::Host) return -ESPIPE;
  if (offset < 0) return -EINVAL;
  std::vector<uint8_t> data(std::min(len, kMaxIo));
  if (write) {
    if (!copy_from_user(buf, data)) return -EFAULT;
    std::optional<MappedFileWrite> mapped = mapped_write_begins(*f, uint64_t(offset), data.size());
    ssize_t n = ::pwrite(f->host, data.data(), data.size(), offset);
    const int err = errno;
    if (mapped) mapped_write_ends(*mapped, n);
    return n < 0 ? -err : int64_t(n);
  }
  mapped_read_begins(*f);
  ssize_t n = ::pread(f->host, data.data(), data.size(), offset);
  if (n < 0) return -errno;
  data.resize(size_t(n));
  return copy_to_user(buf, data) ? n : -EFAULT;
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
    // (A descriptor another process fills or drains that is not ready
    // after the first part: what was moved, rather than block the recorder.)
    if (total && outside_.iov_part_would_wait(write, fd)) break;
    int64_t n = write ? sys_write(fd, base, len) : sys_read(fd, base, len);
    // (A pipe that is empty or full after the first part gives -EAGAIN:
    // the call returns what it moved, as Linux's does.)
    if (n < 0) return total ? total : n;
    total += n;
    if (uint64_t(n) < len) break;  // short transfer ends the vector, as in the kernel
  }
  return total;
}

int64_t LinuxKernel::host_stat(const struct stat& hs, uint64_t buf) {
  StatInfo st;
  st.dev = hs.st_dev;
  st.ino = hs.st_ino;
  st.mode = hs.st_mode;
  st.nlink = hs.st_nlink;
  st.uid = hs.st_uid;
  st.gid = hs.st_gid;
  st.rdev = hs.st_rdev;
  st.size = hs.st_size;
  st.blksize = hs.st_blksize;
  st.blocks = hs.st_blocks;
  // One time field in StatInfo: the modification time, the one programs
  // compare (make, cp -u); access and change times report it too.
  st.time_sec = hs.st_mtim.tv_sec;
  st.time_nsec = hs.st_mtim.tv_nsec;
  return copy_to_user(buf, arch_.encode_stat(st)) ? 0 : -EFAULT;
}

int64_t LinuxKernel::sys_fstat(int fd, uint64_t buf, uint64_t steps) {
  const GuestFd* f = fds_.get(fd);
  if (!f) return -EBADF;
  if (f->kind == GuestFd::Kind::Host) {
    struct stat hs {};
    if (::fstat(f->host, &hs) < 0) return -errno;
    return host_stat(hs, buf);
  }
  StatInfo st;
  st.dev = 0xd;
  st.ino = 1000 + uint64_t(f->stream);
  st.mode = kSIfifo | 0600;
  if (f->kind != GuestFd::Kind::StdStream) {
    // Linux's anonymous inode: no file type bits, one inode for all.
    st.dev = 0xe;
    st.ino = 1;
    st.mode = 0600;
  }
  st.uid = getuid();
  st.gid = getgid();
  st.time_sec = int64_t(1700000000 + steps / 1000000000);
  return copy_to_user(buf, arch_.encode_stat(st)) ? 0 : -EFAULT;
}

int64_t LinuxKernel::sys_newfstatat(int dirfd, uint64_t path, uint64_t buf, uint64_t flags, uint64_t steps) {
  std::string p;
  if (int64_t e = read_path(path, p); e < 0) return e;
  if (p.empty() && (flags & kAtEmptyPath) && dirfd != GuestFdTable::kAtFdcwd) return sys_fstat(dirfd, buf, steps);
  int dir = fds_.host_dir(dirfd);
  if (dir < 0 && !(p.size() && p[0] == '/')) return dir;
  // /proc/self/fd/N, /dev/fd/N, /dev/stdin...: the guest's descriptor N
  // (on the host, the recorder's); lstat of the link is the host's.
  if (const ProcSelfPath what = proc_self_path(p, pid_);
      what.entry == ProcSelfEntry::Fd && !(flags & AT_SYMLINK_NOFOLLOW) && !what.thread_self && !what.tid)
    return fds_.get(what.fd) ? sys_fstat(what.fd, buf, steps) : -ENOENT;
  struct stat hs {};
  int host_flags = int(flags & (AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH));
  if (::fstatat(dir < 0 ? AT_FDCWD : dir, p.c_str(), &hs, host_flags) < 0) return -errno;
  return host_stat(hs, buf);
}

int64_t LinuxKernel::sys_ioctl(int fd, uint64_t request, uint64_t arg) {
  const GuestFd* f = fds_.get(fd);
  if (!f) return -EBADF;
  // Requests every file takes (fs/ioctl.c): close-on-exec, and non-blocking
  // mode, which libuv sets with FIONBIO on the pipe it makes of stdout
  // (node printed "Error: open ENOTTY" when it was refused).
  if (request == FIOCLEX || request == FIONCLEX) return fds_.set_cloexec(fd, request == FIOCLEX);
  if (request == FIONBIO) {
    uint8_t b[4];
    if (!copy_from_user(arg, b)) return -EFAULT;
    int on = 0;
    std::memcpy(&on, b, 4);
    if (f->eventfd) f->eventfd->set_nonblocking(on != 0);  // an eventfd, or a timerfd's counter
    if (f->kind != GuestFd::Kind::Host) return 0;  // as F_SETFL: the emulated streams never block the recorder
    return ::ioctl(f->host, FIONBIO, &on) < 0 ? -errno : 0;
  }
  if (f->kind != GuestFd::Kind::Host) return -ENOTTY;  // TCGETS, TIOCGWINSZ, ...: not terminals
  // Terminal and byte-count queries on host files; the kernel's structs
  // are the same on x86-64 and AArch64.
  size_t size = request == TCGETS ? 36 : request == TIOCGWINSZ ? 8 : request == FIONREAD ? 4 : 0;
  if (size == 0) {
    if (!isatty(f->host)) return -ENOTTY;
    note_unsupported(current_, "ioctl on a terminal other than TCGETS / TIOCGWINSZ / FIONREAD");
    return -ENOTTY;
  }
  uint8_t out[64] = {};
  if (::ioctl(f->host, request, out) < 0) return -errno;
  return copy_to_user(arg, {out, size}) ? 0 : -EFAULT;
}

int64_t LinuxKernel::sys_readlink(int dirfd, uint64_t path, uint64_t buf, uint64_t size) {
  std::string p;
  if (int64_t e = read_path(path, p); e < 0) return e;
  if (int64_t(size) <= 0) return -EINVAL;
  std::string target;
  int64_t err = 0;
  if (auto link = proc_self_.link(p, err)) {
    if (err < 0) return err;
    target = std::move(*link);
  } else {
    int dir = fds_.host_dir(dirfd);
    if (dir < 0 && !(p.size() && p[0] == '/')) return dir;
    std::vector<char> tmp(std::min<uint64_t>(size, 4096));
    ssize_t n = ::readlinkat(dir < 0 ? AT_FDCWD : dir, p.c_str(), tmp.data(), tmp.size());
    if (n < 0) return -errno;
    target.assign(tmp.data(), size_t(n));
  }
  size_t n = std::min<size_t>(size, target.size());
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(target.data()), n);
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
