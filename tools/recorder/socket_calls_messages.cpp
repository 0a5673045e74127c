// sendmsg, recvmsg, sendmmsg and recvmmsg on host sockets
// (docs/recording.md, "Sockets"). The guest's iovecs are gathered into one
// host buffer (and a received one scattered back); SCM_RIGHTS carries host
// descriptors on the host and guest fds in guest memory (guest_sockets.h);
// what recvmsg writes back (data, name, control, their lengths, flags) are
// the call's memory effects.
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"
#include "tools/recorder/socket_calls.h"

namespace ttd::rec {

namespace {

constexpr uint64_t kMaxIov = 1024;         // UIO_MAXIOV
constexpr uint64_t kMaxControl = 1 << 16;  // above Linux's optmem_max (20 KiB): ENOBUFS
constexpr uint64_t kMmsgSize = 64;         // struct mmsghdr: msghdr, msg_len, padding

struct IoPart {
  uint64_t base = 0, len = 0;
};

}  // namespace

int SocketCalls::install_received_fd(int host, bool cloexec) {
  struct stat st {};
  GuestFd g;
  g.kind = GuestFd::Kind::Host;
  g.host = host;
  g.cloexec = cloexec;
  g.path = "[received]";
  if (::fstat(host, &st) == 0 && S_ISSOCK(st.st_mode)) {
    g.socket = g.socket_outside = true;
    g.pipe_id = k_.next_pipe_id_++;
  } else if (S_ISFIFO(st.st_mode)) {
    // A pipe end: read and written as the program's own pipes are.
    g.pipe = true;
    g.pipe_id = k_.next_pipe_id_++;
  }
  return k_.fds_.add(std::move(g));  // closes `host` when the table is full
}

namespace {

// The guest's iovec array, at most kMaxIov entries: -errno or 0.
template <class Copy>
int64_t read_iov(Copy&& copy_from_user, uint64_t iov, uint64_t count, std::vector<IoPart>& parts, uint64_t& total) {
  if (count > kMaxIov) return -EMSGSIZE;
  std::vector<uint8_t> table(count * 16);
  if (!copy_from_user(iov, std::span<uint8_t>(table))) return -EFAULT;
  total = 0;
  for (uint64_t i = 0; i < count; ++i) {
    IoPart p;
    std::memcpy(&p.base, table.data() + 16 * i, 8);
    std::memcpy(&p.len, table.data() + 16 * i + 8, 8);
    if (int64_t(p.len) < 0) return -EINVAL;
    p.len = std::min(p.len, kMaxIo - total);
    total += p.len;
    parts.push_back(p);
  }
  return 0;
}

// A struct msghdr at `msg` and its iovec array: -errno or 0.
template <class Copy>
int64_t read_msghdr(Copy&& copy_from_user, uint64_t msg, GuestMsghdr& m, std::vector<IoPart>& parts, uint64_t& total) {
  uint8_t raw[GuestMsghdr::kSize];
  if (!copy_from_user(msg, std::span<uint8_t>(raw))) return -EFAULT;
  m = GuestMsghdr::decode(raw);
  return read_iov(copy_from_user, m.iov, m.iovlen, parts, total);
}

}  // namespace

int64_t SocketCalls::sys_sendmsg(int fd, uint64_t msg, uint64_t flags, SyscallOutcome& out) {
  const GuestFd* f = k_.fds_.get(fd);
  auto copy_in = [this](uint64_t addr, std::span<uint8_t> b) { return k_.copy_from_user(addr, b); };
  GuestMsghdr m;
  std::vector<IoPart> parts;
  uint64_t total = 0;
  if (int64_t e = read_msghdr(copy_in, msg, m, parts, total); e < 0) return e;
  std::vector<uint8_t> data(total);
  for (uint64_t at = 0; const IoPart& p : parts) {
    if (!k_.copy_from_user(p.base, {data.data() + at, p.len})) return -EFAULT;
    at += p.len;
  }
  if (m.name && (int32_t(m.namelen) < 0 || m.namelen > sizeof(sockaddr_storage))) return -EINVAL;
  std::vector<uint8_t> name(m.name ? m.namelen : 0);
  if (!k_.copy_from_user(m.name, name)) return -EFAULT;
  if (m.controllen > kMaxControl) return -ENOBUFS;
  std::vector<uint8_t> control(m.control ? m.controllen : 0), host_control;
  if (!k_.copy_from_user(m.control, control)) return -EFAULT;
  auto host_of = [this](int guest) {
    const GuestFd* g = k_.fds_.get(guest);
    // Eventfds, epoll sets and the emulated streams live in the recorder:
    // no host descriptor to pass (docs/recording.md, "Sockets").
    return g && g->kind == GuestFd::Kind::Host ? g->host : -1;
  };
  if (int64_t e = control_to_host(control, host_of, pid_t(k_.pid_), host_control); e < 0) return e;
  iovec one{data.data(), data.size()};
  msghdr hm{};
  hm.msg_name = name.empty() ? nullptr : name.data();
  hm.msg_namelen = socklen_t(name.size());
  hm.msg_iov = &one;
  hm.msg_iovlen = 1;
  hm.msg_control = host_control.empty() ? nullptr : host_control.data();
  hm.msg_controllen = host_control.size();
  if (const int64_t e = child_waits(*f, POLLOUT, flags)) return e;
  return send_result(*f, ::sendmsg(f->host, &hm, host_msg_flags(*f, flags) | MSG_NOSIGNAL), flags, out);
}

int64_t SocketCalls::sys_recvmsg(int fd, uint64_t msg, uint64_t flags) {
  const GuestFd* f = k_.fds_.get(fd);
  auto copy_in = [this](uint64_t addr, std::span<uint8_t> b) { return k_.copy_from_user(addr, b); };
  GuestMsghdr m;
  std::vector<IoPart> parts;
  uint64_t total = 0;
  if (int64_t e = read_msghdr(copy_in, msg, m, parts, total); e < 0) return e;
  std::vector<uint8_t> data(total);
  std::vector<uint8_t> control(m.control ? std::min(m.controllen, kMaxControl) : 0);
  sockaddr_storage ss{};
  iovec one{data.data(), data.size()};
  msghdr hm{};
  hm.msg_name = m.name ? &ss : nullptr;
  hm.msg_namelen = m.name ? sizeof ss : 0;
  hm.msg_iov = &one;
  hm.msg_iovlen = 1;
  hm.msg_control = control.empty() ? nullptr : control.data();
  hm.msg_controllen = control.size();
  // Received descriptors are the recorder's own until installed: never
  // inherited by what it runs.
  if (const int64_t e = child_waits(*f, POLLIN, flags)) return e;
  const ssize_t n = ::recvmsg(f->host, &hm, host_msg_flags(*f, flags | MSG_CMSG_CLOEXEC));
  if (n < 0) return -errno;
  if (n > 0) k_.note_pipe_change(*f);
  control.resize(hm.msg_controllen);
  const bool cloexec = flags & MSG_CMSG_CLOEXEC;
  if (control_from_host(control, [&](int host) { return install_received_fd(host, cloexec); }) > 0)
    hm.msg_flags |= MSG_CTRUNC;
  // The data back into the guest's buffers (with MSG_TRUNC a datagram's
  // whole length is returned, more than was read).
  uint64_t left = std::min<uint64_t>(uint64_t(n), data.size());
  for (uint64_t at = 0; const IoPart& p : parts) {
    if (left == 0) break;
    const uint64_t k = std::min(left, p.len);
    if (!k_.copy_to_user(p.base, {data.data() + at, k})) return -EFAULT;
    at += k;
    left -= k;
  }
  if (m.name) {
    const size_t name_len = std::min<size_t>(m.namelen, hm.msg_namelen);
    if (!k_.copy_to_user(m.name, {reinterpret_cast<const uint8_t*>(&ss), name_len}) ||
        !k_.put_u32s(msg + GuestMsghdr::kNamelenAt, {uint32_t(hm.msg_namelen)}))
      return -EFAULT;
  }
  const uint32_t msg_flags = uint32_t((hm.msg_flags & ~MSG_CMSG_CLOEXEC) | (flags & MSG_CMSG_CLOEXEC));
  if (!k_.copy_to_user(m.control, control) || !k_.put_u64s(msg + GuestMsghdr::kControllenAt, {control.size()}) ||
      !k_.put_u32s(msg + GuestMsghdr::kFlagsAt, {msg_flags}))
    return -EFAULT;
  return n;
}

// Each message in turn as sendmsg / recvmsg; the first may wait
// (LinuxKernel::blocks), the others take what is ready at once, so
// recvmmsg without MSG_WAITFORONE returns fewer messages than Linux's may,
// and its timeout is not used (docs/recording.md, "Sockets").
int64_t SocketCalls::sys_mmsg(bool send, const uint64_t a[6], SyscallOutcome& out) {
  const int fd = int(int32_t(a[0]));
  const uint64_t vlen = std::min<uint64_t>(uint32_t(a[2]), kMaxIov);
  uint64_t flags = a[3];
  int64_t done = 0;
  for (uint64_t i = 0; i < vlen; ++i) {
    const uint64_t hdr = a[1] + kMmsgSize * i;
    const int64_t r = send ? sys_sendmsg(fd, hdr, flags, out) : sys_recvmsg(fd, hdr, flags);
    if (r < 0) return done ? done : r;  // Linux keeps the error for the next call
    if (!k_.put_u32s(hdr + GuestMsghdr::kSize, {uint32_t(r)})) return done ? done : -EFAULT;
    ++done;
    if (!send) flags |= MSG_DONTWAIT;  // after the first message nothing waits here
  }
  return done;
}

}  // namespace ttd::rec
