// epoll_create, epoll_create1, epoll_ctl, epoll_wait, epoll_pwait and
// epoll_pwait2 over the descriptors whose readiness the recorder knows,
// the ones poll answers for (poll_calls.cpp): pipes the program
// made, eventfds, the standard streams (ready in their direction), and
// other epoll sets (nested, readable while their ready list is not
// empty), and nothing else: regular files and directories are refused
// with EPERM as Linux refuses them (they have no poll method), FIFOs
// opened by path, terminals and devices with -ENOSYS (listed).
// The interest list and the reporting rules are GuestEpoll's; an item is
// (open file, fd), so it outlives its fd while a dup of the file is open.
// A wait with
// nothing ready parks the thread as poll does (LinuxKernel::blocks) until
// another thread's syscall makes a watched descriptor ready or, with a
// finite timeout, no thread can run; the events it returns are one guest
// memory write, so they are in the trace as the syscall's effect.
#include <poll.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"
#include "tools/recorder/poll_calls.h"

namespace ttd::rec {

namespace {

constexpr uint64_t kEpollCloexec = 02000000;  // O_CLOEXEC, the same on x86-64 and AArch64
constexpr uint32_t kPollable = GuestEpoll::kIn | GuestEpoll::kOut | POLLPRI | POLLRDNORM | POLLWRNORM |
                               GuestEpoll::kRdHup;

}  // namespace

struct PollCalls::EpollRequest {
  std::string_view call;
  std::shared_ptr<GuestEpoll> set;
  size_t max = 0;
  std::optional<uint64_t> timeout_ns;  // nullopt: waits until something is ready
};

// struct epoll_event is packed on x86-64 (12 bytes), aligned on AArch64 (16).
static size_t event_size(ArchId arch) { return arch == ArchId::X86_64 ? 12 : 16; }

int64_t PollCalls::sys_epoll_create(bool create1, uint64_t arg) {
  if (create1 ? (arg & ~kEpollCloexec) != 0 : int32_t(arg) <= 0) return -EINVAL;
  GuestFd f;
  f.kind = GuestFd::Kind::Epoll;
  f.cloexec = create1 && (arg & kEpollCloexec);
  f.path = "anon_inode:[eventpoll]";
  f.epoll = std::make_shared<GuestEpoll>();
  return k_.fds_.add(std::move(f));
}

int64_t PollCalls::sys_epoll_ctl(int epfd, int op, int fd, uint64_t event) {
  uint32_t events = 0;
  uint64_t data = 0;
  if (op != GuestEpoll::kDel) {  // Linux reads the event first (EFAULT before EBADF)
    uint8_t raw[16];
    const size_t size = event_size(k_.arch_.id());
    if (!k_.copy_from_user(event, {raw, size})) return -EFAULT;
    std::memcpy(&events, raw, 4);
    std::memcpy(&data, raw + size - 8, 8);
  }
  const GuestFd* set = k_.fds_.get(epfd);
  const GuestFd* target = k_.fds_.get(fd);
  if (!set || !target) return -EBADF;
  auto refuse = [&](const std::string& what) {
    k_.note_unsupported(k_.current_, "epoll_ctl");
    k_.unsupported_what_ = "epoll_ctl on fd " + std::to_string(fd) + " (" + what + ", " + target->path +
                        "): only pipes the program made, sockets, eventfds, epoll sets and the standard streams "
                        "are watched";
    return -ENOSYS;
  };
  if (target->kind == GuestFd::Kind::Host && !target->pipe && !target->socket) {
    struct stat st {};
    if (::fstat(target->host, &st) < 0) return -errno;
    // No poll method: Linux's EPERM.
    if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode)) return -EPERM;
    // FIFOs, terminals and other character devices, inherited sockets:
    // the host is asked (epoll_probe), as for the host's stdin.
    if (k_.outside_.host_fd(*target) < 0) return refuse("a special file");
  }
  // A set in itself, even by a dup (the same open file): EINVAL.
  if (set->kind != GuestFd::Kind::Epoll || set->file == target->file) return -EINVAL;
  const bool nested = target->kind == GuestFd::Kind::Epoll;
  // Linux's EPOLLEXCLUSIVE_OK_BITS; an exclusive item cannot be a set.
  if (op == GuestEpoll::kAdd && (events & GuestEpoll::kExclusive) &&
      (nested || (events & ~(GuestEpoll::kIn | GuestEpoll::kOut | GuestEpoll::kErr | GuestEpoll::kHup |
                             GuestEpoll::kWakeup | GuestEpoll::kEdge | GuestEpoll::kExclusive))))
    return -EINVAL;
  // Loops and chains deeper than 5 sets: ELOOP, before EEXIST as Linux checks.
  if (op == GuestEpoll::kAdd && nested)
    if (int e = GuestEpoll::nest_error(*set->epoll, *target->epoll, k_.fds_.epoll_sets()); e < 0) return e;
  return set->epoll->ctl(op, {target->file, fd}, events, data,
                         nested ? std::weak_ptr<const GuestEpoll>(target->epoll) : std::weak_ptr<const GuestEpoll>());
}

GuestEpoll::Readiness PollCalls::epoll_probe_item(const GuestEpoll& set, const GuestEpoll::Key& key,
                                                  std::vector<IoWatch>* watches) {
  const int fd = k_.fds_.fd_of_item(key);
  if (fd < 0) return {};
  return epoll_probe(fd, watches, short(set.items().at(key).events & kPollable));
}

GuestEpoll::Readiness PollCalls::epoll_probe(int fd, std::vector<IoWatch>* watches, short want) {
  GuestEpoll::Readiness r;
  const GuestFd* f = k_.fds_.get(fd);
  if (!f) return r;
  switch (f->kind) {
    case GuestFd::Kind::StdStream:
      if (const int host = k_.outside_.host_fd(*f); host >= 0) {  // the host's stdin: the host's answer
        r.mask = uint16_t(k_.outside_.poll_now(fd, host, want, watches));
        r.changes = r.mask;  // it changes unseen: a new readiness is an edge
      } else {
        r.mask = f->stream == 0 ? POLLIN | POLLRDNORM : POLLOUT | POLLWRNORM;
      }
      break;
    case GuestFd::Kind::Eventfd:
      r.mask = (f->eventfd->readable() ? POLLIN | POLLRDNORM : 0) | (f->eventfd->writable() ? POLLOUT | POLLWRNORM : 0);
      r.changes = f->eventfd->changes();
      if (watches) watches->push_back({fd, -1, want, f->eventfd});
      break;
    case GuestFd::Kind::Timerfd:  // readable when it has expired since the last read
      r.mask = f->eventfd->readable() ? POLLIN | POLLRDNORM : 0;
      r.changes = f->eventfd->changes();
      if (watches) watches->push_back({fd, -1, short(want & (POLLIN | POLLRDNORM)), f->eventfd});
      break;
    case GuestFd::Kind::Epoll: {
      // Readable when one of its items is ready (poll on an epoll fd, or a
      // set in a set); its items' watches wake a thread waiting on it. It
      // changes when an item's file does or an ADD / MOD is made (Linux
      // wakes the outer set then).
      const GuestEpoll& set = *f->epoll;
      uint64_t item_changes = 0;
      const auto ready = f->epoll->collect(
          [&](const GuestEpoll::Key& key) {
            const GuestEpoll::Readiness ir = epoll_probe_item(set, key, watches);
            item_changes += ir.changes;
            return ir;
          },
          1, false);
      r.mask = ready.empty() ? 0 : POLLIN | POLLRDNORM;
      r.changes = (set.ctl_changes() << 32) + item_changes;
      break;
    }
    case GuestFd::Kind::Host:
      if (f->pipe || f->socket) {
        pollfd p{f->host, short(kPollable), 0};
        if (::poll(&p, 1, 0) > 0) r.mask = uint16_t(p.revents);
        auto it = k_.pipe_changes_.find(f->pipe_id);
        r.changes = it == k_.pipe_changes_.end() ? 0 : it->second;
        // A peer elsewhere changes a socket unseen: a new readiness is an edge.
        if (f->socket) r.changes = (r.changes << 16) | r.mask;
        if (watches) watches->push_back({fd, f->host, want, nullptr, f->socket_outside});
      } else if (const int host = k_.outside_.host_fd(*f); host >= 0) {  // a FIFO, a terminal ...
        r.mask = uint16_t(k_.outside_.poll_now(fd, host, short(kPollable), nullptr));
        r.changes = r.mask;  // it changes unseen: a new readiness is an edge
        if (watches) watches->push_back({fd, host, want, nullptr, true});
      } else {
        r.mask = POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;  // files: Linux's default mask
      }
      break;
  }
  return r;
}

int64_t PollCalls::epoll_request(Sys sys, const uint64_t a[6], EpollRequest& req) {
  req.call = sys == Sys::EpollWait ? "epoll_wait" : sys == Sys::EpollPwait ? "epoll_pwait" : "epoll_pwait2";
  if (sys == Sys::EpollPwait2) {
    if (a[3]) {
      uint8_t raw[16];
      if (!k_.copy_from_user(a[3], raw)) return -EFAULT;
      int64_t sec, nsec;
      std::memcpy(&sec, raw, 8);
      std::memcpy(&nsec, raw + 8, 8);
      if (sec < 0 || nsec < 0 || nsec >= int64_t(kNanos)) return -EINVAL;
      req.timeout_ns = uint64_t(sec) > (~0ull - uint64_t(nsec)) / kNanos ? ~0ull : uint64_t(sec) * kNanos + uint64_t(nsec);
    }
  } else if (int32_t ms = int32_t(a[3]); ms >= 0) {
    req.timeout_ns = uint64_t(ms) * 1000000;
  }
  // The signal mask (no signal is delivered here), checked as Linux does.
  if (sys != Sys::EpollWait && a[4] && a[5] != 8) return -EINVAL;
  const int32_t max = int32_t(a[2]);
  if (max <= 0 || uint64_t(max) > INT_MAX / event_size(k_.arch_.id())) return -EINVAL;
  req.max = size_t(max);
  const GuestFd* f = k_.fds_.get(int(int32_t(a[0])));
  if (!f) return -EBADF;
  if (f->kind != GuestFd::Kind::Epoll) return -EINVAL;
  req.set = f->epoll;
  return 0;
}

bool PollCalls::epoll_blocks(Sys sys, const uint64_t a[6], uint64_t steps) {
  GuestThread& t = k_.threads_.current();
  if (t.wake_result) return false;  // timed out: call() answers
  EpollRequest req;
  if (epoll_request(sys, a, req) < 0 || req.timeout_ns == uint64_t(0)) return false;
  std::vector<IoWatch> watches;
  const auto ready = req.set->collect(
      [&](const GuestEpoll::Key& key) { return epoll_probe_item(*req.set, key, &watches); }, req.max, false);
  if (!ready.empty()) return false;
  k_.threads_.wait_poll(req.call, std::move(watches), req.timeout_ns, steps);
  k_.update_timer_due();  // its end is due like a timer (guest_sleeps.cpp)
  return true;
}

int64_t PollCalls::sys_epoll_wait(Sys sys, const uint64_t a[6]) {
  GuestThread& t = k_.threads_.current();
  const bool timed_out = t.wake_result.has_value();
  t.wake_result.reset();  // a timeout: what is ready now (usually nothing) is the answer
  t.waiting_since.reset();
  EpollRequest req;
  if (int64_t e = epoll_request(sys, a, req); e < 0) return e;
  auto ready =
      req.set->collect([&](const GuestEpoll::Key& key) { return epoll_probe_item(*req.set, key, nullptr); }, req.max,
                       true);
  // A fork's unrecorded child (one thread) waits on the host for the
  // set's descriptors until its timeout, in real time (until 2026-11-29
  // it answered 0 at once).
  if (ready.empty() && k_.child_waits_on_host() && !timed_out && req.timeout_ns != uint64_t(0)) {
    std::vector<IoWatch> watches;
    req.set->collect([&](const GuestEpoll::Key& key) { return epoll_probe_item(*req.set, key, &watches); }, req.max,
                     false);
    const int64_t r = k_.child_wait_for_fds(watches, req.timeout_ns, [&] {
      ready = req.set->collect([&](const GuestEpoll::Key& key) { return epoll_probe_item(*req.set, key, nullptr); },
                               req.max, true);
      return int64_t(ready.size());
    });
    if (r < 0) return r;
  }
  if (ready.empty()) return 0;
  const size_t size = event_size(k_.arch_.id());
  std::vector<uint8_t> raw(ready.size() * size, 0);
  for (size_t i = 0; i < ready.size(); ++i) {
    std::memcpy(raw.data() + i * size, &ready[i].events, 4);
    std::memcpy(raw.data() + i * size + size - 8, &ready[i].data, 8);
  }
  return k_.copy_to_user(a[1], raw) ? int64_t(ready.size()) : -EFAULT;
}

}  // namespace ttd::rec
