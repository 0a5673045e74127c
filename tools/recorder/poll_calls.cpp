// poll, ppoll, select and pselect6 on the descriptors the recorder knows,
// with the determinism rules of the pipe and futex waits
// (docs/recording.md, "Threads"):
//   - an eventfd or epoll set is asked of the recorder's own state
//     (poll_calls_epoll.cpp);
//   - a pipe the program made, or a socket, is asked with the host's poll (its other end
//     is the program's too, so its readiness depends on the program's
//     threads alone); regular files, directories and block devices are
//     always ready, as Linux's default poll mask says; the standard
//     streams are always ready in their direction (stdin to read,
//     stdout/stderr to write: a read of the recorder's own stdin then
//     waits on the host as it does today);
//   - anything else (a FIFO opened by path, a terminal, a character
//     device) is refused with -ENOSYS and listed, never waited for on the
//     host;
//   - nothing ready and a timeout that is not 0: the thread is parked
//     (LinuxKernel::blocks) until another thread's syscall makes one of
//     its pipes ready, or, with a finite timeout, until no thread can run
//     (virtual time); the call is then recorded once, when it returns.
// Results (revents, the fd sets, the remaining time) are guest memory
// writes, so they are in the trace as the syscall's effects.
#include <poll.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"
#include "tools/recorder/poll_calls.h"

namespace ttd::rec {

namespace {

// Linux's masks (fs/select.c): what makes an fd readable, writable or
// exceptional for select, and a file without a poll method's answer.
constexpr short kInSet = POLLRDNORM | POLLRDBAND | POLLIN | POLLHUP | POLLERR;
constexpr short kOutSet = POLLWRBAND | POLLWRNORM | POLLOUT | POLLERR;
constexpr short kExSet = POLLPRI;
constexpr short kDefaultMask = POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;

bool read_u64(std::span<const uint8_t> b, size_t at, uint64_t& v) {
  if (at + 8 > b.size()) return false;
  std::memcpy(&v, b.data() + at, 8);
  return true;
}

}  // namespace

int64_t PollCalls::call(Sys sys, const uint64_t a[6], uint64_t steps) {
  const auto fd = [&](int i) { return int(int32_t(a[i])); };
  switch (sys) {
    case Sys::Poll:
    case Sys::Ppoll:
    case Sys::Select:
    case Sys::Pselect6: return sys_poll(sys, a, steps);
    case Sys::EpollCreate: return sys_epoll_create(false, a[0]);
    case Sys::EpollCreate1: return sys_epoll_create(true, a[0]);
    case Sys::EpollCtl: return sys_epoll_ctl(fd(0), int(int32_t(a[1])), fd(2), a[3]);
    case Sys::EpollWait:
    case Sys::EpollPwait:
    case Sys::EpollPwait2: return sys_epoll_wait(sys, a);
    default: return -ENOSYS;
  }
}

bool PollCalls::blocks(Sys sys, const uint64_t a[6], uint64_t steps) {
  switch (sys) {
    case Sys::Poll:
    case Sys::Ppoll:
    case Sys::Select:
    case Sys::Pselect6: return poll_blocks(sys, a, steps);
    case Sys::EpollWait:
    case Sys::EpollPwait:
    case Sys::EpollPwait2: return epoll_blocks(sys, a, steps);
    default: return false;
  }
}

struct PollCalls::PollRequest {
  struct Item {
    int fd = -1;
    short events = 0, revents = 0;
  };
  std::string_view call;
  bool select = false;
  std::vector<Item> items;
  // select: the fds asked for (< n) and the three sets as read.
  int n = 0;
  uint64_t set_addr[3] = {};
  std::vector<uint64_t> sets[3];
  std::vector<int> select_fds;  // items[i].fd == select_fds[i]
  // The timeout: nullopt waits forever.
  std::optional<uint64_t> timeout_ns;
  uint64_t timeout_addr = 0;    // ppoll/select/pselect6: where the remaining time goes back
  bool timeval = false;         // select: struct timeval, else struct timespec
  std::string unsupported;      // poll_scan: the descriptor it cannot answer for
};

// Reads the call's arguments: the poll set, the timeout, the signal mask's
// size. 0, or -errno for the guest.
int64_t PollCalls::poll_request(Sys sys, const uint64_t a[6], PollRequest& req) {
  req.call = sys == Sys::Poll ? "poll" : sys == Sys::Ppoll ? "ppoll" : sys == Sys::Select ? "select" : "pselect6";
  req.select = sys == Sys::Select || sys == Sys::Pselect6;
  // The timeout.
  const uint64_t tp = sys == Sys::Ppoll ? a[2] : req.select ? a[4] : 0;
  if (sys == Sys::Poll) {
    const int32_t ms = int32_t(a[2]);
    if (ms >= 0) req.timeout_ns = uint64_t(ms) * 1000000;
  } else if (tp) {
    uint8_t raw[16];
    if (!k_.copy_from_user(tp, raw)) return -EFAULT;
    int64_t sec, sub;
    std::memcpy(&sec, raw, 8);
    std::memcpy(&sub, raw + 8, 8);
    req.timeval = sys == Sys::Select;
    if (req.timeval) {  // Linux normalises microseconds past a second
      if (sec < 0 || sub < 0) return -EINVAL;
      sec += sub / 1000000;
      sub = (sub % 1000000) * 1000;
    } else if (sec < 0 || sub < 0 || sub >= int64_t(kNanos)) {
      return -EINVAL;
    }
    req.timeout_ns = uint64_t(sec) > (~0ull - uint64_t(sub)) / kNanos ? ~0ull : uint64_t(sec) * kNanos + uint64_t(sub);
    req.timeout_addr = tp;
  }
  // The signal mask (there are no signal deliveries to mask here), checked as Linux does.
  if (sys == Sys::Ppoll && a[3] && a[4] != 8) return -EINVAL;
  if (sys == Sys::Pselect6 && a[5]) {
    uint8_t raw[16];
    if (!k_.copy_from_user(a[5], raw)) return -EFAULT;
    uint64_t ss, len;
    std::memcpy(&ss, raw, 8);
    std::memcpy(&len, raw + 8, 8);
    if (ss && len != 8) return -EINVAL;
  }
  if (!req.select) {
    if (a[1] > uint64_t(k_.fds_.max_fds())) return -EINVAL;  // RLIMIT_NOFILE
    std::vector<uint8_t> raw(a[1] * 8);
    if (!k_.copy_from_user(a[0], raw)) return -EFAULT;
    req.items.resize(a[1]);
    for (size_t i = 0; i < req.items.size(); ++i) {
      std::memcpy(&req.items[i].fd, raw.data() + 8 * i, 4);
      std::memcpy(&req.items[i].events, raw.data() + 8 * i + 4, 2);
    }
    return 0;
  }
  const int32_t n = int32_t(a[0]);
  if (n < 0) return -EINVAL;
  req.n = std::min(n, k_.fds_.max_fds());
  const size_t words = (size_t(req.n) + 63) / 64;
  for (int s = 0; s < 3; ++s) {
    req.set_addr[s] = a[1 + s];
    req.sets[s].assign(words, 0);
    if (!req.set_addr[s] || words == 0) continue;
    std::vector<uint8_t> raw(words * 8);
    if (!k_.copy_from_user(req.set_addr[s], raw)) return -EFAULT;
    for (size_t w = 0; w < words; ++w) read_u64(raw, 8 * w, req.sets[s][w]);
  }
  const short set_events[3] = {kInSet, kOutSet, kExSet};
  for (int fd = 0; fd < req.n; ++fd) {
    short events = 0;
    for (int s = 0; s < 3; ++s)
      if ((req.sets[s][size_t(fd) / 64] >> (fd % 64)) & 1) events |= set_events[s];
    if (!events) continue;
    if (!k_.fds_.get(fd)) return -EBADF;
    req.items.push_back({fd, events, 0});
    req.select_fds.push_back(fd);
  }
  return 0;
}

// Fills each item's revents from the descriptor's state now; returns how
// many are ready (select: how many bits its result sets get), or -ENOSYS
// with req.unsupported naming the descriptor. `watches` gets the pipes,
// for a thread that will wait on them.
int64_t PollCalls::poll_scan(PollRequest& req, std::vector<IoWatch>* watches) {
  int64_t ready = 0;
  for (auto& it : req.items) {
    it.revents = 0;
    if (it.fd < 0) continue;  // poll ignores negative fds
    const GuestFd* f = k_.fds_.get(it.fd);
    const short wanted = short(it.events | POLLERR | POLLHUP);
    if (!f) {
      it.revents = POLLNVAL;
    } else if (const int host = k_.outside_.host_fd(*f); host >= 0) {
      // The host's stdin, a terminal, a FIFO, an inherited pipe: the host's answer.
      it.revents = short(k_.outside_.poll_now(it.fd, host, it.events, watches) & wanted);
    } else if (f->kind != GuestFd::Kind::Host) {
      // The standard streams, eventfds and epoll sets: the readiness epoll
      // reports for them (poll_calls_epoll.cpp).
      it.revents = short(epoll_probe(it.fd, watches, it.events).mask & wanted);
    } else if (f->pipe || f->socket) {
      pollfd p{f->host, it.events, 0};
      if (::poll(&p, 1, 0) < 0) return -errno;
      it.revents = p.revents;
      if (watches) watches->push_back({it.fd, f->host, it.events, nullptr, f->socket_outside});
    } else {
      struct stat st {};
      if (::fstat(f->host, &st) < 0) return -errno;
      if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISBLK(st.st_mode)) {
        req.unsupported = std::string(req.call) + " on fd " + std::to_string(it.fd) + " (a special file, " + f->path +
                          "): only pipes, sockets, FIFOs, character devices, files and the standard streams are polled";
        return -ENOSYS;
      }
      it.revents = short(kDefaultMask & wanted);
    }
    if (!req.select) {
      ready += it.revents != 0;
    } else {
      ready += bool(it.revents & kInSet & it.events) + bool(it.revents & kOutSet & it.events) +
               bool(it.revents & kExSet & it.events);
    }
  }
  if (watches && ready) watches->clear();
  return ready;
}

bool PollCalls::poll_blocks(Sys sys, const uint64_t a[6], uint64_t steps) {
  GuestThread& t = k_.threads_.current();
  if (t.wake_result) return false;  // timed out: call() answers
  PollRequest req;
  if (poll_request(sys, a, req) < 0 || req.timeout_ns == uint64_t(0)) return false;
  std::vector<IoWatch> watches;
  if (poll_scan(req, &watches) != 0) return false;  // ready, or an error call() reports
  k_.threads_.wait_poll(req.call, std::move(watches), req.timeout_ns, steps);
  k_.update_timer_due();  // its end is due like a timer (guest_sleeps.cpp)
  return true;
}

int64_t PollCalls::sys_poll(Sys sys, const uint64_t a[6], uint64_t steps) {
  GuestThread& t = k_.threads_.current();
  const bool timed_out = t.wake_result.has_value();
  t.wake_result.reset();
  const std::optional<uint64_t> since = t.waiting_since;
  t.waiting_since.reset();
  PollRequest req;
  if (int64_t e = poll_request(sys, a, req); e < 0) return e;
  int64_t ret = poll_scan(req, nullptr);
  if (ret == -ENOSYS && !req.unsupported.empty()) {
    k_.note_unsupported(k_.current_, req.call);
    k_.unsupported_what_ = req.unsupported;
    return ret;
  }
  if (ret < 0) return ret;
  // A fork's unrecorded child (one thread) waits on the host until its
  // timeout, in real time (until 2026-11-29 it answered 0 at once: bash's
  // `read -t 1` in a pipeline's subshell gave up before the data came).
  if (ret == 0 && k_.child_waits_on_host() && !timed_out && req.timeout_ns != uint64_t(0)) {
    std::vector<IoWatch> watches;
    if (ret = poll_scan(req, &watches); ret == 0)
      ret = k_.child_wait_for_fds(watches, req.timeout_ns, [&] { return poll_scan(req, nullptr); });
    if (ret < 0) return ret;
  }
  if (!req.select) {
    // The whole array back, only revents changed (one memory write).
    std::vector<uint8_t> raw(req.items.size() * 8);
    if (!k_.copy_from_user(a[0], raw)) return -EFAULT;
    for (size_t i = 0; i < req.items.size(); ++i) std::memcpy(raw.data() + 8 * i + 6, &req.items[i].revents, 2);
    if (!k_.copy_to_user(a[0], raw)) return -EFAULT;
  } else {
    const short masks[3] = {kInSet, kOutSet, kExSet};
    std::vector<uint64_t> out[3];
    for (int s = 0; s < 3; ++s) out[s].assign(req.sets[s].size(), 0);
    for (size_t i = 0; i < req.items.size(); ++i) {
      const int fd = req.select_fds[i];
      for (int s = 0; s < 3; ++s)
        if (((req.sets[s][size_t(fd) / 64] >> (fd % 64)) & 1) && (req.items[i].revents & masks[s]))
          out[s][size_t(fd) / 64] |= 1ull << (fd % 64);
    }
    for (int s = 0; s < 3; ++s) {
      if (!req.set_addr[s] || out[s].empty()) continue;
      std::vector<uint8_t> raw(out[s].size() * 8);
      std::memcpy(raw.data(), out[s].data(), raw.size());
      if (!k_.copy_to_user(req.set_addr[s], raw)) return -EFAULT;
    }
  }
  // The time left, in virtual time (1 ns per step since the call first
  // waited), for the calls that write it back; a zero timeout is left
  // alone, and a fault here is ignored, as Linux does.
  if (req.timeout_addr && req.timeout_ns && *req.timeout_ns) {
    const uint64_t elapsed = timed_out ? *req.timeout_ns : since ? steps - *since : 0;
    const uint64_t left = elapsed >= *req.timeout_ns ? 0 : *req.timeout_ns - elapsed;
    k_.put_u64s(req.timeout_addr, {left / kNanos, req.timeval ? (left % kNanos) / 1000 : left % kNanos});
  }
  return ret;
}

}  // namespace ttd::rec
