// The socket syscalls of the recorded process (docs/recording.md,
// "Sockets"): socket, socketpair, bind, connect, listen, accept, shutdown,
// the names and options, and the sends and receives (socket_calls.cpp,
// socket_calls_messages.cpp). Sockets are the host's, behind guest fds
// (GuestFd::socket); what the program receives is written into guest
// memory as the call's effects, so the trace replays it whatever the
// peer did.
//
// Contract: LinuxKernel::call hands every socket syscall to call(), and
// LinuxKernel::blocks asks blocks() first: a call that would wait parks
// only its thread (true), and the thread runs the call again once the
// socket is ready (LinuxKernel::poll_outside_io polls the host for it).
// The descriptor table, guest memory, threads and signals are the
// kernel's (a LinuxKernel this class is a friend of); the state of the
// connects started without blocking (GuestConnects) is this class's own.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <optional>

#include "tools/recorder/guest_sockets.h"
#include "tools/recorder/syscall_outcome.h"
#include "tools/recorder/syscall_table.h"

namespace ttd::rec {

class LinuxKernel;
struct GuestFd;

class SocketCalls {
 public:
  explicit SocketCalls(LinuxKernel& kernel) : k_(kernel) {}
  SocketCalls(const SocketCalls&) = delete;
  SocketCalls& operator=(const SocketCalls&) = delete;

  // A socket syscall's answer (-EBADF, -ENOTSOCK for a descriptor that is
  // not a host socket; -ENOSYS for another call).
  int64_t call(Sys sys, const uint64_t a[6], SyscallOutcome& out);
  // Asked before call(): true if the thread was parked until the socket is
  // ready (accept, a receive or send in blocking mode; connect, which is
  // started here without blocking the recorder).
  bool blocks(Sys sys, const uint64_t a[6]);

 private:
  int64_t sys_socket(uint64_t domain, uint64_t type, uint64_t protocol, std::optional<uint64_t> pair);
  int64_t sys_bind_connect(bool connect, int fd, uint64_t addr, uint64_t len);
  int64_t sys_accept(int fd, uint64_t addr, uint64_t len_ptr, uint64_t flags);
  int64_t sys_sockopt(bool set, int fd, const uint64_t a[6]);
  int64_t sys_sock_name(bool peer, int fd, uint64_t addr, uint64_t len_ptr);
  int64_t sys_send_recv(bool send, const uint64_t a[6], SyscallOutcome& out);  // sendto, recvfrom
  // socket_calls_messages.cpp.
  int64_t sys_sendmsg(int fd, uint64_t msg, uint64_t flags, SyscallOutcome& out);
  int64_t sys_recvmsg(int fd, uint64_t msg, uint64_t flags);
  int64_t sys_mmsg(bool send, const uint64_t a[6], SyscallOutcome& out);
  // A descriptor received in SCM_RIGHTS, owned from now: its guest fd.
  int install_received_fd(int host, bool cloexec);
  bool socket_waits(const GuestFd& f, uint64_t flags) const;
  // The guest's send/receive flags for the host call on `f`: with
  // MSG_DONTWAIT on a recorded process's socket, whose thread was parked
  // instead if the call would block (park_on_socket).
  // A fork's unrecorded child: waits until the socket is ready for
  // `events`; -EINTR if the child's timer or a signal from outside came
  // first, else 0.
  int64_t child_waits(const GuestFd& f, short events, uint64_t flags);
  int host_msg_flags(const GuestFd& f, uint64_t flags) const;
  // A send's host result as the guest's: EPIPE also sends SIGPIPE unless
  // MSG_NOSIGNAL (the host call never does), bytes sent are a change the
  // peer's waiters see.
  int64_t send_result(const GuestFd& f, ssize_t n, uint64_t flags, SyscallOutcome& out);
  // The thread waits until `f` is ready for `events` (true), unless it is
  // already or the guest asked not to wait.
  bool park_on_socket(int fd, const GuestFd& f, short events, uint64_t flags);

  LinuxKernel& k_;
  GuestConnects connects_;
};

}  // namespace ttd::rec
