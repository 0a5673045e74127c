// Sockets (docs/recording.md, "Sockets"): AF_UNIX, AF_INET and AF_INET6
// sockets are the host's, made and used as the program asks, behind guest
// fds (GuestFd::socket). What the program receives (data, addresses,
// option values, descriptors) is written into guest memory as the call's
// effects, so the trace replays it exactly whatever the peer did.
//
// A call that would block (accept, connect, a receive or send on a socket
// in blocking mode) parks only its thread (LinuxKernel::blocks): the host
// call is then made without blocking once the socket is ready, as for the
// program's pipes. Readiness a thread of the program cannot cause (a peer
// in another process) is polled at thread switches and waited for on the
// host when no thread can run (linux_kernel_socket_waits.cpp).
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tools/recorder/host_fd_ready.h"
#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"
#include "tools/recorder/socket_calls.h"

namespace ttd::rec {

namespace {

// SOCK_NONBLOCK and SOCK_CLOEXEC have O_NONBLOCK's and O_CLOEXEC's values,
// the same on x86-64 and AArch64 (the host's).
constexpr uint64_t kSockFlags = SOCK_NONBLOCK | SOCK_CLOEXEC;
constexpr uint64_t kMaxOptlen = 1 << 16;  // a socket option's value

// `op` on `host` with O_NONBLOCK set for its duration: the guest's thread
// waited already (accept, connect), so the recorder must not.
template <class Op>
int without_blocking(int host, Op op) {
  const int fl = ::fcntl(host, F_GETFL);
  const bool toggle = fl >= 0 && !(fl & O_NONBLOCK);
  if (toggle) ::fcntl(host, F_SETFL, fl | O_NONBLOCK);
  const int r = op();
  const int err = errno;
  if (toggle) ::fcntl(host, F_SETFL, fl);
  errno = err;
  return r;
}

// A relative AF_UNIX path names a file under the guest's working
// directory, which is not the recorder's (guest_fd_table.h).
bool relative_unix_path(const std::vector<uint8_t>& sa) {
  if (sa.size() <= offsetof(sockaddr_un, sun_path)) return false;
  sa_family_t family;
  std::memcpy(&family, sa.data(), sizeof family);
  const uint8_t first = sa[offsetof(sockaddr_un, sun_path)];
  return family == AF_UNIX && first != 0 && first != '/';  // 0: an abstract name
}

}  // namespace

int64_t SocketCalls::call(Sys sys, const uint64_t a[6], SyscallOutcome& out) {
  const int fd = int(int32_t(a[0]));
  const GuestFd* f = k_.fds_.get(fd);
  const bool is_fd_call = sys != Sys::Socket && sys != Sys::Socketpair;
  if (is_fd_call && !f) return -EBADF;
  if (is_fd_call && f->kind != GuestFd::Kind::Host) return -ENOTSOCK;  // emulated streams, eventfds, epoll sets
  switch (sys) {
    case Sys::Socket: return sys_socket(a[0], a[1], a[2], std::nullopt);
    case Sys::Socketpair: return sys_socket(a[0], a[1], a[2], a[3]);
    case Sys::Bind: return sys_bind_connect(false, fd, a[1], a[2]);
    case Sys::Connect: return sys_bind_connect(true, fd, a[1], a[2]);
    case Sys::Listen: return ::listen(f->host, int(a[1])) < 0 ? -errno : 0;
    case Sys::Accept: return sys_accept(fd, a[1], a[2], 0);
    case Sys::Accept4: return sys_accept(fd, a[1], a[2], a[3]);
    case Sys::Shutdown:
      if (::shutdown(f->host, int(a[1])) < 0) return -errno;
      k_.note_pipe_change(*f);  // the peer sees end of file (edge-triggered epoll)
      return 0;
    case Sys::Getsockname: return sys_sock_name(false, fd, a[1], a[2]);
    case Sys::Getpeername: return sys_sock_name(true, fd, a[1], a[2]);
    case Sys::Setsockopt: return sys_sockopt(true, fd, a);
    case Sys::Getsockopt: return sys_sockopt(false, fd, a);
    case Sys::Sendto: return sys_send_recv(true, a, out);
    case Sys::Recvfrom: return sys_send_recv(false, a, out);
    case Sys::Sendmsg: return sys_sendmsg(fd, a[1], a[2], out);
    case Sys::Recvmsg: return sys_recvmsg(fd, a[1], a[2]);
    case Sys::Sendmmsg: return sys_mmsg(true, a, out);
    case Sys::Recvmmsg: return sys_mmsg(false, a, out);
    default: return -ENOSYS;
  }
}

bool SocketCalls::socket_waits(const GuestFd& f, uint64_t flags) const {
  if (!f.socket || k_.child_waits_on_host() || (flags & MSG_DONTWAIT)) return false;
  const int fl = ::fcntl(f.host, F_GETFL);
  return fl >= 0 && !(fl & O_NONBLOCK);
}

int64_t SocketCalls::child_waits(const GuestFd& f, short events, uint64_t flags) {
  // A fork's unrecorded child blocks in the host call, but only once the
  // socket is ready: until then it waits no longer than its next timer,
  // and a signal from outside ends the wait (LinuxKernel::wait_host_ready).
  if (!f.socket || !k_.child_waits_on_host() || (flags & MSG_DONTWAIT)) return 0;
  return k_.wait_host_ready(f.host, events);
}

int SocketCalls::host_msg_flags(const GuestFd& f, uint64_t flags) const {
  return int(flags) | (f.socket && !k_.child_waits_on_host() ? MSG_DONTWAIT : 0);
}

int64_t SocketCalls::send_result(const GuestFd& f, ssize_t n, uint64_t flags, SyscallOutcome& out) {
  if (n < 0) {
    const int64_t e = -errno;
    if (e == -EPIPE && !(flags & MSG_NOSIGNAL)) k_.signal_self(13 /*SIGPIPE*/, out);
    return e;
  }
  k_.note_pipe_change(f);
  return n;
}

bool SocketCalls::park_on_socket(int fd, const GuestFd& f, short events, uint64_t flags) {
  if (!socket_waits(f, flags) || host_ready(f.host, events)) return false;
  k_.threads_.wait_io(IoWatch{fd, f.host, events, nullptr, f.socket_outside});
  return true;
}

bool SocketCalls::blocks(Sys sys, const uint64_t a[6]) {
  const int fd = int(int32_t(a[0]));
  const GuestFd* f = k_.fds_.get(fd);
  if (!f || f->kind != GuestFd::Kind::Host || !f->socket) return false;
  switch (sys) {
    case Sys::Accept:
    case Sys::Accept4: return park_on_socket(fd, *f, POLLIN, 0);
    case Sys::Recvfrom:
    case Sys::Recvmmsg: return park_on_socket(fd, *f, POLLIN, a[3]);
    case Sys::Recvmsg: return park_on_socket(fd, *f, POLLIN, a[2]);
    case Sys::Sendto:
    case Sys::Sendmmsg: return park_on_socket(fd, *f, POLLOUT, a[3]);
    case Sys::Sendmsg: return park_on_socket(fd, *f, POLLOUT, a[2]);
    case Sys::Connect: {
      // Started here, without blocking the recorder; the thread waits for
      // POLLOUT if it is in progress and runs the call again, which
      // answers from connects_.
      if (!socket_waits(*f, 0) || connects_.pending(f->file)) return false;
      const int64_t r = sys_bind_connect(true, fd, a[1], a[2]);
      if (r != -EINPROGRESS) {
        connects_.finished(f->file, r);
        return false;
      }
      connects_.started(f->file);
      k_.threads_.wait_io(IoWatch{fd, f->host, POLLOUT, nullptr, f->socket_outside});
      return true;
    }
    default: return false;
  }
}

int64_t SocketCalls::sys_socket(uint64_t domain, uint64_t type, uint64_t protocol, std::optional<uint64_t> pair) {
  // Netlink, packet and the rest are not offered: as a kernel built
  // without them (glibc, iproute2 and Python do without).
  if (domain != AF_UNIX && domain != AF_INET && domain != AF_INET6) return -EAFNOSUPPORT;
  if (type & ~(kSockFlags | 0xf)) return -EINVAL;
  const int host_type = int(type & ~uint64_t(SOCK_CLOEXEC)) | SOCK_CLOEXEC;  // the recorder's own stay private
  int host[2] = {-1, -1};
  const int r = pair ? ::socketpair(int(domain), host_type, int(protocol), host)
                     : (host[0] = ::socket(int(domain), host_type, int(protocol)));
  if (r < 0) return -errno;
  GuestFd g;
  g.kind = GuestFd::Kind::Host;
  g.cloexec = (type & SOCK_CLOEXEC) != 0;
  g.path = "[socket]";
  g.socket = true;
  g.socket_outside = !pair;  // both ends of a pair are the program's
  g.pipe_id = k_.next_pipe_id_++;
  GuestFd second = g;
  g.host = host[0];
  const int first = k_.fds_.add(std::move(g));
  if (!pair || first < 0) {
    if (pair) ::close(host[1]);
    return first;
  }
  second.host = host[1];
  const int other = k_.fds_.add(std::move(second));
  if (other < 0) {
    k_.fds_.close(first);
    return other;
  }
  if (!k_.put_u32s(*pair, {uint32_t(first), uint32_t(other)})) {
    k_.fds_.close(first);
    k_.fds_.close(other);
    return -EFAULT;
  }
  return 0;
}

int64_t SocketCalls::sys_bind_connect(bool connect, int fd, uint64_t addr, uint64_t len) {
  const GuestFd* f = k_.fds_.get(fd);
  if (connect && connects_.pending(f->file)) {
    // The connect blocks() started: its answer.
    if (auto r = connects_.take(f->file)) return *r;
    if (!host_ready(f->host, POLLOUT)) return -EINTR;  // a signal woke the thread; it goes on, as Linux's
    int err = 0;
    socklen_t l = sizeof err;
    if (::getsockopt(f->host, SOL_SOCKET, SO_ERROR, &err, &l) < 0) return -errno;
    return -err;
  }
  if (int32_t(len) < 0 || len > sizeof(sockaddr_storage)) return -EINVAL;
  std::vector<uint8_t> sa(len);
  if (!k_.copy_from_user(addr, sa)) return -EFAULT;
  auto op = [&] {
    const auto* p = reinterpret_cast<const sockaddr*>(sa.data());
    if (!connect) return ::bind(f->host, p, socklen_t(len));
    // A thread waits for the connection in blocks(), never the recorder.
    return socket_waits(*f, 0) ? without_blocking(f->host, [&] { return ::connect(f->host, p, socklen_t(len)); })
                               : ::connect(f->host, p, socklen_t(len));
  };
  int r;
  if (relative_unix_path(sa)) {
    const int here = ::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    const int cwd = k_.fds_.host_dir(GuestFdTable::kAtFdcwd);
    if (here < 0 || cwd < 0 || ::fchdir(cwd) < 0) {
      if (here >= 0) ::close(here);
      return -ENOENT;
    }
    r = op();
    const int err = errno;
    [[maybe_unused]] const int back = ::fchdir(here);  // `here` is the recorder's own directory: it exists
    ::close(here);
    errno = err;
  } else {
    r = op();
  }
  return r < 0 ? -errno : 0;
}

int64_t SocketCalls::sys_accept(int fd, uint64_t addr, uint64_t len_ptr, uint64_t flags) {
  if (flags & ~kSockFlags) return -EINVAL;
  const GuestFd* f = k_.fds_.get(fd);
  uint32_t guest_len = 0;
  if (addr) {
    uint8_t raw[4];
    if (!k_.copy_from_user(len_ptr, raw)) return -EFAULT;
    std::memcpy(&guest_len, raw, 4);
    if (int32_t(guest_len) < 0) return -EINVAL;
  }
  if (const int64_t e = child_waits(*f, POLLIN, 0)) return e;
  sockaddr_storage ss{};
  socklen_t sl = sizeof ss;
  const int host_flags = SOCK_CLOEXEC | int(flags & SOCK_NONBLOCK);
  auto op = [&] { return ::accept4(f->host, reinterpret_cast<sockaddr*>(&ss), &sl, host_flags); };
  const int h = socket_waits(*f, 0) ? without_blocking(f->host, op) : op();
  if (h < 0) return -errno;
  GuestFd g;
  g.kind = GuestFd::Kind::Host;
  g.host = h;
  g.cloexec = (flags & SOCK_CLOEXEC) != 0;
  g.path = "[socket]";
  g.socket = g.socket_outside = true;
  g.pipe_id = k_.next_pipe_id_++;
  const int nfd = k_.fds_.add(std::move(g));
  if (nfd < 0) return nfd;
  if (addr) {
    const size_t n = std::min<size_t>(guest_len, sl);
    if (!k_.copy_to_user(addr, {reinterpret_cast<const uint8_t*>(&ss), n}) || !k_.put_u32s(len_ptr, {uint32_t(sl)})) {
      k_.fds_.close(nfd);
      return -EFAULT;
    }
  }
  return nfd;
}

int64_t SocketCalls::sys_sock_name(bool peer, int fd, uint64_t addr, uint64_t len_ptr) {
  const GuestFd* f = k_.fds_.get(fd);
  uint8_t raw[4];
  if (!k_.copy_from_user(len_ptr, raw)) return -EFAULT;
  int32_t guest_len;
  std::memcpy(&guest_len, raw, 4);
  if (guest_len < 0) return -EINVAL;
  sockaddr_storage ss{};
  socklen_t sl = sizeof ss;
  auto* p = reinterpret_cast<sockaddr*>(&ss);
  if ((peer ? ::getpeername(f->host, p, &sl) : ::getsockname(f->host, p, &sl)) < 0) return -errno;
  const size_t n = std::min<size_t>(size_t(guest_len), sl);
  if (!k_.copy_to_user(addr, {reinterpret_cast<const uint8_t*>(&ss), n})) return -EFAULT;
  return k_.put_u32s(len_ptr, {uint32_t(sl)}) ? 0 : -EFAULT;
}

int64_t SocketCalls::sys_sockopt(bool set, int fd, const uint64_t a[6]) {
  const GuestFd* f = k_.fds_.get(fd);
  const int level = int(a[1]), name = int(a[2]);
  if (set) {
    if (int32_t(a[4]) < 0) return -EINVAL;
    std::vector<uint8_t> val(std::min<uint64_t>(a[4], kMaxOptlen));
    if (!k_.copy_from_user(a[3], val)) return -EFAULT;
    return ::setsockopt(f->host, level, name, val.data(), socklen_t(val.size())) < 0 ? -errno : 0;
  }
  uint8_t raw[4];
  if (!k_.copy_from_user(a[4], raw)) return -EFAULT;
  int32_t len;
  std::memcpy(&len, raw, 4);
  if (len < 0) return -EINVAL;
  std::vector<uint8_t> val(std::min<uint64_t>(uint64_t(len), kMaxOptlen));
  socklen_t l = socklen_t(val.size());
  if (::getsockopt(f->host, level, name, val.data(), &l) < 0) return -errno;
  // The peer of a socketpair is this process: its pid is the guest's.
  if (level == SOL_SOCKET && name == SO_PEERCRED && l >= sizeof(ucred)) {
    ucred c;
    std::memcpy(&c, val.data(), sizeof c);
    if (c.pid == ::getpid()) c.pid = pid_t(k_.pid_);
    std::memcpy(val.data(), &c, sizeof c);
  }
  if (!k_.copy_to_user(a[3], {val.data(), std::min<size_t>(l, val.size())})) return -EFAULT;
  return k_.put_u32s(a[4], {uint32_t(l)}) ? 0 : -EFAULT;
}

int64_t SocketCalls::sys_send_recv(bool send, const uint64_t a[6], SyscallOutcome& out) {
  const GuestFd* f = k_.fds_.get(int(int32_t(a[0])));
  const uint64_t flags = a[3];
  if (const int64_t e = child_waits(*f, send ? POLLOUT : POLLIN, flags)) return e;
  const int host_flags = host_msg_flags(*f, flags) | MSG_NOSIGNAL;
  std::vector<uint8_t> data(std::min(a[2], kMaxIo));
  if (send) {
    if (!k_.copy_from_user(a[1], data)) return -EFAULT;
    if (a[4] && (int32_t(a[5]) < 0 || a[5] > sizeof(sockaddr_storage))) return -EINVAL;
    std::vector<uint8_t> name(a[4] ? a[5] : 0);
    if (!k_.copy_from_user(a[4], name)) return -EFAULT;
    const ssize_t n = ::sendto(f->host, data.data(), data.size(), host_flags,
                               name.empty() ? nullptr : reinterpret_cast<const sockaddr*>(name.data()),
                               socklen_t(name.size()));
    return send_result(*f, n, flags, out);
  }
  sockaddr_storage ss{};
  socklen_t sl = sizeof ss;
  const ssize_t n =
      ::recvfrom(f->host, data.data(), data.size(), host_flags & ~MSG_NOSIGNAL,
                 a[4] ? reinterpret_cast<sockaddr*>(&ss) : nullptr, a[4] ? &sl : nullptr);
  if (n < 0) return -errno;
  if (n > 0) k_.note_pipe_change(*f);
  // With MSG_TRUNC a datagram's whole length is returned, more than was read.
  if (!k_.copy_to_user(a[1], {data.data(), std::min<size_t>(size_t(n), data.size())})) return -EFAULT;
  if (a[4] && a[5]) {
    uint8_t raw[4];
    if (!k_.copy_from_user(a[5], raw)) return -EFAULT;
    int32_t guest_len;
    std::memcpy(&guest_len, raw, 4);
    if (guest_len < 0) return -EINVAL;
    if (!k_.copy_to_user(a[4], {reinterpret_cast<const uint8_t*>(&ss), std::min<size_t>(size_t(guest_len), sl)}) ||
        !k_.put_u32s(a[5], {uint32_t(sl)}))
      return -EFAULT;
  }
  return n;
}

}  // namespace ttd::rec
