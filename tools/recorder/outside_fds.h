// Descriptors another process makes ready: the host's stdin (unless the
// recording feeds stdin data), a terminal or other character device, a
// FIFO opened by path, a pipe or socket inherited from `ttd record`'s
// parent (GuestFd::outside). Their readiness is the host's to say, at any
// time, so it is asked of the host (poll, timeout 0), never assumed
// (outside_fds.cpp).
//
// Contract: poll, select and epoll ask host_fd() and poll_now(); read,
// write, readv and writev ask io_blocks() and iov_part_would_wait(). A
// thread parked on one (GuestThreads::wait_io, an IoWatch marked outside)
// is polled at thread switches by LinuxKernel::poll_outside_io. The
// descriptors and threads are the kernel's (a LinuxKernel this class is a
// friend of); no state of its own.
#pragma once
#include <cstdint>
#include <vector>

#include "tools/recorder/guest_threads.h"

namespace ttd::rec {

class LinuxKernel;
struct GuestFd;

class OutsideFds {
 public:
  explicit OutsideFds(LinuxKernel& kernel) : k_(kernel) {}
  OutsideFds(const OutsideFds&) = delete;
  OutsideFds& operator=(const OutsideFds&) = delete;

  // The host descriptor to poll for `f`, or -1 (a pipe or socket the
  // program made, a file, an emulated stream).
  int host_fd(const GuestFd& f) const;
  // The host's answer for `want` on `host` (guest fd `fd`) now; a watch
  // to `watches`, polled at thread switches.
  short poll_now(int fd, int host, short want, std::vector<IoWatch>* watches);
  // A blocking read (the host's stdin, a terminal, a FIFO, an inherited
  // pipe) or write (the last two, and the recorder's stdout and stderr
  // when a pipe or socket) of `f` that is not ready parks the current
  // thread (true) as for a socket whose peer is elsewhere.
  bool io_blocks(bool write, int fd, const GuestFd& f);
  // readv / writev: whether the next part would wait on such a
  // descriptor (the call then returns what it moved, as Linux's).
  bool iov_part_would_wait(bool write, int fd);

 private:
  // The host descriptor behind such an `f` when it is not ready for a
  // write (`write`) or a read now, else -1 (also in a fork's child).
  int not_ready(bool write, const GuestFd& f) const;
  // 1 or 2 for the guest's stdout or stderr stream when the recorder's
  // own is a pipe or socket (asked once), else -1.
  int std_stream_pipe(const GuestFd& f) const;

  LinuxKernel& k_;
  mutable int8_t std_pipe_[2] = {-1, -1};  // std_stream_pipe: unknown, no, yes
};

}  // namespace ttd::rec
