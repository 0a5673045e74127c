#include "engine/index_temp_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ttd {

namespace fs = std::filesystem;

namespace {

// Registered temporary paths, readable from a signal handler: fixed
// slots, no allocation. A path that does not fit is not registered (the
// next open removes it instead).
constexpr int kSlots = 16;
constexpr size_t kPathMax = 4096;
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 registered
  char path[kPathMax] = {};  // so g_slots is constant-initialised: no start-up loop faulting in 64 KiB
};
Slot g_slots[kSlots];

void register_path(const std::string& p) {
  if (p.size() >= kPathMax) return;
  for (auto& s : g_slots) {
    int expect = 0;
    if (!s.state.compare_exchange_strong(expect, 1)) continue;
    std::memcpy(s.path, p.c_str(), p.size() + 1);
    s.state.store(2);
    return;
  }
}

extern "C" void unlink_temp_files_and_reraise(int sig) {
  for (auto& s : g_slots)
    if (s.state.load() == 2) ::unlink(s.path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

std::atomic<unsigned> g_builds{0};

// "PID" or "PID.N" after the "INDEX.tmp." prefix; false for anything else.
bool parse_owner(const std::string& rest, long& pid) {
  if (rest.empty()) return false;
  size_t i = 0;
  pid = 0;
  while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9' && i < 10) pid = pid * 10 + (rest[i++] - '0');
  if (i == 0 || pid <= 0) return false;
  if (i == rest.size()) return true;
  if (rest[i++] != '.' || i == rest.size()) return false;
  for (; i < rest.size(); ++i)
    if (rest[i] < '0' || rest[i] > '9') return false;
  return true;
}

bool process_alive(long pid) { return ::kill(pid_t(pid), 0) == 0 || errno == EPERM; }

}  // namespace

Result<TempIndexFile> create_temp_index(const std::string& index_path) {
  TempIndexFile t;
  t.path = index_path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(g_builds++);
  // O_EXCL | O_NOFOLLOW: never truncate or follow whatever already has this name.
  t.fd = ::open(t.path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (t.fd < 0) return make_error(t.path, std::string("cannot create the index: ") + std::strerror(errno));
  if (::flock(t.fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    ::close(t.fd);
    ::unlink(t.path.c_str());
    return make_error(t.path, std::string("cannot lock the index being built: ") + std::strerror(e));
  }
  register_path(t.path);
  return t;
}

void forget_temp_index(const std::string& temp_path) {
  for (auto& s : g_slots) {
    if (s.state.load() != 2 || temp_path != s.path) continue;
    s.state.store(0);
    return;
  }
}

int remove_abandoned_temp_indexes(const std::string& index_path) {
  fs::path ip(index_path);
  std::string dir = ip.has_parent_path() ? ip.parent_path().string() : ".";
  std::string prefix = ip.filename().string() + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  int removed = 0;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    long pid = 0;
    if (name.compare(0, prefix.size(), prefix) != 0 || !parse_owner(name.substr(prefix.size()), pid)) continue;
    if (process_alive(pid)) continue;
    std::string p = dir + "/" + name;
    int fd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    // The lock is free only when no process holds the file open for writing.
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::unlink(p.c_str()) == 0) ++removed;
    ::close(fd);
  }
  ::closedir(d);
  return removed;
}

void remove_temp_files_on_signals() {
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0) continue;
    if (old.sa_handler != SIG_DFL) continue;  // ignored (nohup) or someone else's: leave it
    struct sigaction sa {};
    sa.sa_handler = unlink_temp_files_and_reraise;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace ttd
