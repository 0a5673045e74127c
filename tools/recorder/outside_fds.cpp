// Descriptors another process makes ready (docs/recording.md, "Clocks"
// and "Threads"): the host's stdin (not --stdin data), a terminal or other
// character device, a FIFO opened by path, a pipe or socket inherited from
// `ttd record`'s parent. poll, select and epoll ask the host about them
// (poll, timeout 0); a read or write of one that is not ready parks only
// its thread. Either way the waiting thread is polled at thread switches
// as a socket whose peer is elsewhere (LinuxKernel::poll_outside_io,
// linux_kernel_socket_waits.cpp): when no thread can run the recorder
// waits on the host, until the next timer or sleep's end, and the wall
// time counts on the clock.
#include "tools/recorder/outside_fds.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

int OutsideFds::host_fd(const GuestFd& f) const {
  if (f.kind == GuestFd::Kind::StdStream) return f.stream == 0 && !k_.cfg_.stdin_data ? 0 : -1;
  return f.kind == GuestFd::Kind::Host && f.outside ? f.host : -1;
}

short OutsideFds::poll_now(int fd, int host, short want, std::vector<IoWatch>* watches) {
  pollfd p{host, want, 0};
  if (::poll(&p, 1, 0) <= 0) p.revents = 0;
  if (watches) watches->push_back({fd, host, want, nullptr, true});
  return p.revents;
}

int OutsideFds::not_ready(bool write, const GuestFd& f) const {
  if (k_.child_waits_on_host()) return -1;  // a fork's child waits on the host: it has no other threads
  // Reads of the host's stdin, a terminal, a FIFO, an inherited pipe;
  // writes to the last three, and to the recorder's own stdout and
  // stderr when they are a pipe or socket (`ttd record -- prog | less`:
  // until 2026-11-29 a write to the full pipe blocked every thread).
  const int host = f.kind == GuestFd::Kind::StdStream && write ? std_stream_pipe(f) : host_fd(f);
  if (host < 0) return -1;  // (a file is always ready)
  pollfd p{host, short(write ? POLLOUT : POLLIN), 0};
  return ::poll(&p, 1, 0) == 0 ? host : -1;
}

int OutsideFds::std_stream_pipe(const GuestFd& f) const {
  if (f.stream < 1 || f.stream > 2 || k_.cfg_.capture_output) return -1;
  int8_t& known = std_pipe_[f.stream - 1];
  if (known < 0) {
    struct stat st {};
    known = ::fstat(int(f.stream), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) ? 1 : 0;
  }
  return known ? int(f.stream) : -1;
}

bool OutsideFds::io_blocks(bool write, int fd, const GuestFd& f) {
  const int host = not_ready(write, f);
  if (host < 0) return false;  // ready: the call answers
  const int fl = ::fcntl(host, F_GETFL);
  if (fl < 0 || (fl & O_NONBLOCK)) return false;  // non-blocking: the call answers
  k_.threads_.wait_io(IoWatch{fd, host, short(write ? POLLOUT : POLLIN), nullptr, true});
  return true;
}

bool OutsideFds::iov_part_would_wait(bool write, int fd) {
  const GuestFd* f = k_.fds_.get(fd);
  return f && not_ready(write, *f) >= 0;
}

}  // namespace ttd::rec
