#include "tools/recorder/host_exec.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace ttd::rec {

namespace {

// The open descriptors of this process (a /proc/self/fd listing).
std::vector<int> open_fds() {
  std::vector<int> out;
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return out;
  const int own = ::dirfd(d);
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const int fd = std::atoi(e->d_name);
    if (fd != own) out.push_back(fd);
  }
  ::closedir(d);
  return out;
}

std::vector<char*> c_strings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  for (const std::string& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

int64_t exec_on_host(const HostExec& x) {
  // Undo log: every change below is reversed if the exec fails, so the
  // recorder's own descriptors (the guest's host fds, the trace file) are
  // where they were.
  int top = 0;
  for (const auto& [g, h] : x.fds) top = std::max(top, g + 1);
  struct Moved {
    int target, saved;  // saved: a copy of what was on target (-1: nothing)
    int flags;
  };
  std::vector<Moved> moved;
  std::vector<std::pair<int, int>> cloexec_set;  // fd, its old FD flags
  std::vector<int> temps;
  // 1. Copies of the sources above every target number, so no dup2 below
  //    overwrites a source another target still needs.
  std::vector<std::pair<int, int>> plan;  // target, temp copy of its source
  for (const auto& [g, h] : x.fds) {
    const int t = ::fcntl(h, F_DUPFD_CLOEXEC, top);
    if (t >= 0) temps.push_back(t), plan.push_back({g, t});
  }
  // 2. Everything else is closed by the exec: close-on-exec on all of it.
  for (int fd : open_fds()) {
    if (std::find(temps.begin(), temps.end(), fd) != temps.end()) continue;
    const int fl = ::fcntl(fd, F_GETFD);
    if (fl < 0 || (fl & FD_CLOEXEC)) continue;
    ::fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
    cloexec_set.push_back({fd, fl});
  }
  // 3. The guest's descriptors on the guest's numbers; what was there is
  //    kept (close-on-exec) to be put back.
  for (const auto& [g, t] : plan) {
    const int fl = ::fcntl(g, F_GETFD);
    const int saved = fl >= 0 ? ::fcntl(g, F_DUPFD_CLOEXEC, top) : -1;
    moved.push_back({g, saved, fl});
    ::dup2(t, g);  // without close-on-exec
  }
  sigset_t guest_mask, old_mask;
  sigemptyset(&guest_mask);
  for (int s = 1; s <= 64; ++s)
    if ((x.sigmask >> (s - 1)) & 1) sigaddset(&guest_mask, s);
  std::vector<std::pair<int, struct sigaction>> ignored;  // signal, its old action
  for (int s = 1; s <= 64; ++s) {
    if (!((x.ignored >> (s - 1)) & 1) || s == SIGKILL || s == SIGSTOP) continue;
    struct sigaction ign {}, old {};
    ign.sa_handler = SIG_IGN;
    if (::sigaction(s, &ign, &old) == 0) ignored.push_back({s, old});
  }
  const int old_cwd = ::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  const mode_t old_umask = ::umask(x.umask & 0777);
  // (If this fails, relative paths resolve from the recorder's directory.)
  if (x.cwd >= 0 && ::fchdir(x.cwd) < 0) errno = 0;
  auto argv = c_strings(x.argv), envp = c_strings(x.envp);
  // The limits the program set (the rest are the recorder's, as inherited).
  rlimit old_limits[GuestRlimits::kCount] = {};
  for (int r = 0; r < GuestRlimits::kCount; ++r) {
    ::getrlimit(r, &old_limits[r]);
    if (!x.rlimits.changed(r)) continue;
    const rlimit l{rlim_t(x.rlimits.get(r).cur), rlim_t(x.rlimits.get(r).max)};
    ::setrlimit(r, &l);  // (a limit the host refuses stays the recorder's)
  }
  ::sigprocmask(SIG_SETMASK, &guest_mask, &old_mask);
  ::syscall(SYS_execveat, x.dirfd < 0 ? AT_FDCWD : x.dirfd, x.path.c_str(), argv.data(), envp.data(), x.flags);
  const int err = errno;
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  // Failed: put everything back, in reverse order.
  for (int r = 0; r < GuestRlimits::kCount; ++r) ::setrlimit(r, &old_limits[r]);
  ::umask(old_umask);
  if (old_cwd >= 0) {
    if (::fchdir(old_cwd) < 0) errno = 0;
    ::close(old_cwd);
  }
  for (auto& [s, old] : ignored) ::sigaction(s, &old, nullptr);
  for (auto it = moved.rbegin(); it != moved.rend(); ++it) {
    if (it->saved >= 0) {
      ::dup2(it->saved, it->target);
      ::fcntl(it->target, F_SETFD, it->flags);
      ::close(it->saved);
    } else {
      ::close(it->target);
    }
  }
  for (auto [fd, fl] : cloexec_set) ::fcntl(fd, F_SETFD, fl);
  for (int t : temps) ::close(t);
  return -err;
}

}  // namespace ttd::rec
