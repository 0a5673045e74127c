// The guest's own /proc entries (guest_proc_files.h): opened, they are
// memory files holding what Linux would show the program; read as links,
// the program's descriptors and executable, not the recorder's.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "tools/recorder/guest_proc_files.h"
#include "tools/recorder/guest_proc_status.h"
#include "tools/recorder/linux_kernel.h"
#include "tools/recorder/proc_self_files.h"

namespace ttd::rec {

namespace {

// The recorder's own status: the lines the guest cannot change come from it.
std::string host_status() {
  std::string s;
  const int h = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (h < 0) return s;
  char buf[4096];
  for (ssize_t n; (n = ::read(h, buf, sizeof buf)) > 0;) s.append(buf, size_t(n));
  ::close(h);
  return s;
}

}  // namespace

const GuestThread* ProcSelfFiles::proc_thread(const ProcSelfPath& what) {
  if (what.thread_self) return &k_.threads_.current();
  if (what.tid == 0) return k_.threads_.by_number(1);
  const GuestThread* t = k_.threads_.by_tid(what.tid);
  return t && t->state != GuestThread::State::Exited ? t : nullptr;
}

ProcStatusInput ProcSelfFiles::proc_status_input(const GuestThread& t, bool per_thread) {
  ProcStatusInput in;
  in.name = k_.comm_;
  in.pid = k_.pid_;
  in.tid = per_thread ? t.tid : k_.pid_;
  in.ppid = k_.parent_pid();
  in.pgrp = uint64_t(k_.process_group_of(0, false));
  in.session = uint64_t(k_.process_group_of(0, true));
  in.umask = k_.umask_;
  in.threads = uint32_t(k_.threads_.live());
  in.shared_pending = k_.signals_.process_pending();
  in.sig_pending = k_.signals_.pending(t.number) & ~in.shared_pending;
  in.blocked = k_.signals_.mask(t.number);
  in.queued_signals = uint32_t(__builtin_popcountll(in.shared_pending));
  for (uint32_t n = 1; n <= k_.threads_.count(); ++n)
    in.queued_signals += uint32_t(__builtin_popcountll(k_.signals_.pending(n) & ~in.shared_pending));
  for (int sig = 1; sig <= 64; ++sig) {
    const SigAction a = k_.action(sig);
    if (a.handler == SigAction::kIgn) in.ignored |= sig_bit(sig);
    else if (a.has_handler()) in.caught |= sig_bit(sig);
  }
  in.cpus_allowed = 1;  // sys_sched_getaffinity: one CPU
  in.steps = k_.now_ - k_.clock_ahead_;  // CPU time: the steps, not the host waits
  in.regions = &k_.mem_.regions();
  in.exe_path = k_.cfg_.exe_path;
  in.start_brk = k_.cfg_.brk_base;
  in.arg_start = k_.cfg_.proc_self.arg_start;
  in.arg_end = k_.cfg_.proc_self.arg_end;
  in.env_start = k_.cfg_.proc_self.env_start;
  in.env_end = k_.cfg_.proc_self.env_end;
  return in;
}

std::optional<std::string> ProcSelfFiles::link(const std::string& p, int64_t& err) {
  err = 0;
  // The links themselves name the guest's pid and tid (the host's are the
  // recorder's).
  if (p == "/proc/self" || p == "/proc/self/") return std::to_string(k_.pid_);
  if (p == "/proc/thread-self" || p == "/proc/thread-self/")
    return std::to_string(k_.pid_) + "/task/" + std::to_string(k_.threads_.current().tid);
  const ProcSelfPath what = proc_self_path(p, k_.pid_);
  if (what.std_link) return std::nullopt;  // the link itself: the host's says /proc/self/fd/N
  if (what.entry != ProcSelfEntry::None && !proc_thread(what)) {
    err = -ENOENT;  // task/TID of a thread the guest does not have
    return std::string();
  }
  if (what.entry == ProcSelfEntry::Exe) return k_.cfg_.exe_path;  // the program, not the recorder
  if (what.entry != ProcSelfEntry::Fd) return std::nullopt;
  const GuestFd* f = k_.fds_.get(what.fd);
  if (!f) {
    err = -ENOENT;
    return std::string();
  }
  switch (f->kind) {
    case GuestFd::Kind::Host: return host_fd_target(f->host);
    case GuestFd::Kind::StdStream: return host_fd_target(f->stream);
    case GuestFd::Kind::Eventfd: return std::string("anon_inode:[eventfd]");
    case GuestFd::Kind::Epoll: return std::string("anon_inode:[eventpoll]");
    case GuestFd::Kind::Timerfd: return std::string("anon_inode:[timerfd]");
  }
  return std::string();
}

int64_t ProcSelfFiles::open_guest_dir(const char* host_dir, const std::string& p, int host_flags,
                                      const std::function<std::vector<GuestDirEntry>()>& entries) {
  if ((host_flags & O_ACCMODE) != O_RDONLY) return -EISDIR;
  const int h = ::open(host_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (h < 0) return -errno;
  GuestFd f;
  f.host = h;
  f.cloexec = (host_flags & O_CLOEXEC) != 0;
  f.path = p;
  auto listing = std::make_shared<GuestDirListing>(std::vector<GuestDirEntry>{});
  f.listing = listing;
  const int fd = k_.fds_.add(std::move(f));
  if (fd >= 0) *listing = GuestDirListing(entries());
  return fd;
}

std::optional<int64_t> ProcSelfFiles::open(const std::string& p, int host_flags) {
  // /proc itself, for the recorded process (a fork's child has the host's pid).
  if ((p == "/proc" || p == "/proc/") && k_.pid_ != uint64_t(::getpid()))
    return open_guest_dir("/proc", p, host_flags, [this] { return proc_root_entries(uint64_t(::getpid()), k_.pid_); });
  const ProcSelfPath what = proc_self_path(p, k_.pid_);
  const GuestThread* thread = proc_thread(what);
  if (what.entry != ProcSelfEntry::None && !thread) return -ENOENT;  // task/TID: no such guest thread
  const bool per_thread = what.thread_self || what.tid != 0;
  int h = -1;
  std::string bytes;
  auto guest_bytes = [this](uint64_t from, uint64_t to) {
    std::string s(to > from ? to - from : 0, '\0');
    if (!k_.mem_.read(from, {reinterpret_cast<uint8_t*>(s.data()), s.size()})) s.clear();
    return s;
  };
  switch (what.entry) {
    case ProcSelfEntry::None: return std::nullopt;
    case ProcSelfEntry::Exe: h = ::open(k_.cfg_.exe_path.c_str(), host_flags | O_CLOEXEC); break;
    case ProcSelfEntry::FdDir:
      // The guest's descriptors, this one included, as Linux lists the
      // descriptor that reads it.
      return open_guest_dir("/proc/self/fd", p, host_flags,
                            [this] { return proc_fd_entries(k_.fds_.open_in(0, ~0u)); });
    case ProcSelfEntry::TaskDir:
      return open_guest_dir("/proc/self/task", p, host_flags, [this] {
        std::vector<uint64_t> tids;
        for (uint32_t n = 1; n <= k_.threads_.count(); ++n)
          if (const GuestThread* t = k_.threads_.by_number(n); t && t->state != GuestThread::State::Exited)
            tids.push_back(t->tid);
        return proc_task_entries(tids);
      });
    case ProcSelfEntry::Fd: {
      // Reopening a descriptor reopens its file (the host's fd number
      // differs from the guest's).
      const GuestFd* f = k_.fds_.get(what.fd);
      if (!f) return -ENOENT;
      // A standard stream is the recorder's own unless it is captured or
      // fed from RecordOptions; eventfds and epoll sets are not files.
      const bool own_stream = f->kind == GuestFd::Kind::StdStream && !k_.cfg_.capture_output &&
                              (f->stream != 0 || !k_.cfg_.stdin_data);
      if (f->kind != GuestFd::Kind::Host && !own_stream) return -ENXIO;
      const int host = f->kind == GuestFd::Kind::Host ? f->host : f->stream;
      h = ::open(("/proc/self/fd/" + std::to_string(host)).c_str(), host_flags | O_CLOEXEC);
      break;
    }
    case ProcSelfEntry::Maps: bytes = render_proc_maps(k_.mem_.regions()); break;
    case ProcSelfEntry::Cmdline: bytes = guest_bytes(k_.cfg_.proc_self.arg_start, k_.cfg_.proc_self.arg_end); break;
    case ProcSelfEntry::Environ: bytes = guest_bytes(k_.cfg_.proc_self.env_start, k_.cfg_.proc_self.env_end); break;
    case ProcSelfEntry::Comm: bytes = k_.comm_ + "\n"; break;
    case ProcSelfEntry::Auxv:
      bytes.assign(k_.cfg_.proc_self.auxv.begin(), k_.cfg_.proc_self.auxv.end());
      break;
    case ProcSelfEntry::Status: bytes = render_proc_status(proc_status_input(*thread, per_thread), host_status()); break;
    case ProcSelfEntry::Stat: bytes = render_proc_stat(proc_status_input(*thread, per_thread)); break;
    case ProcSelfEntry::Statm: bytes = render_proc_statm(proc_status_input(*thread, per_thread)); break;
  }
  if (what.entry == ProcSelfEntry::Exe || what.entry == ProcSelfEntry::Fd) {
    if (h < 0) return -errno;
  } else {
    // The entries are 0444 (root may open them for writing; nothing is written).
    if ((host_flags & O_ACCMODE) != O_RDONLY && ::geteuid() != 0) return -EACCES;
    h = ::memfd_create("ttd-proc-self", MFD_CLOEXEC);
    if (h < 0) return -errno;
    for (size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::write(h, bytes.data() + done, bytes.size() - done);
      if (n <= 0) {
        ::close(h);
        return -EIO;
      }
      done += size_t(n);
    }
    ::lseek(h, 0, SEEK_SET);
  }
  GuestFd f;
  f.host = h;
  f.cloexec = (host_flags & O_CLOEXEC) != 0;
  f.path = what.entry == ProcSelfEntry::Exe ? k_.cfg_.exe_path : p;
  return k_.fds_.add(std::move(f));
}

}  // namespace ttd::rec
