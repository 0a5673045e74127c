#include "tools/recorder/guest_fd_table.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "tools/recorder/guest_proc_files.h"

namespace ttd::rec {

GuestFdTable::GuestFdTable() {
  for (int i = 0; i < 3; ++i) {
    GuestFd f;
    f.kind = GuestFd::Kind::StdStream;
    f.stream = i;
    f.path = i == 0 ? "[stdin]" : i == 1 ? "[stdout]" : "[stderr]";
    f.file = next_file_++;
    fds_[i] = f;
  }
  cwd_ = ::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

GuestFdTable::~GuestFdTable() {
  for (auto& [fd, f] : fds_)
    if (f.kind == GuestFd::Kind::Host) ::close(f.host);
  if (cwd_ >= 0) ::close(cwd_);
}

void GuestFdTable::close_on_exec() {
  std::vector<int> doomed;
  for (const auto& [fd, f] : fds_)
    if (f.cloexec) doomed.push_back(fd);
  for (int fd : doomed) close(fd);
}

void GuestFdTable::swap(GuestFdTable& other) noexcept {
  fds_.swap(other.fds_);
  std::swap(cwd_, other.cwd_);
  std::swap(next_file_, other.next_file_);
}

const GuestFd* GuestFdTable::get(int fd) const {
  auto it = fds_.find(fd);
  return it == fds_.end() ? nullptr : &it->second;
}

int GuestFdTable::add(GuestFd f, int lowest) {
  int fd = lowest < 0 ? 0 : lowest;
  while (fd < max_fds_ && fds_.count(fd)) ++fd;
  if (fd >= max_fds_) {
    if (f.kind == GuestFd::Kind::Host) ::close(f.host);
    return lowest >= max_fds_ ? -EINVAL : -EMFILE;
  }
  if (!f.file) f.file = next_file_++;
  if (f.kind == GuestFd::Kind::Host && !f.pipe && !f.socket) {
    struct stat st {};
    const bool known = ::fstat(f.host, &st) == 0;
    f.outside = f.pidfd || (known && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode)));
    if (known && S_ISREG(st.st_mode)) f.dev = uint64_t(st.st_dev), f.ino = uint64_t(st.st_ino);
  }
  fds_[fd] = std::move(f);
  return fd;
}

std::vector<std::pair<int, int>> GuestFdTable::inherited_by_exec() const {
  std::vector<std::pair<int, int>> out;
  for (const auto& [fd, f] : fds_) {
    if (f.cloexec) continue;
    if (f.kind == GuestFd::Kind::Host) out.push_back({fd, f.host});
    else if (f.kind == GuestFd::Kind::StdStream) out.push_back({fd, f.stream});
  }
  return out;
}

int GuestFdTable::close(int fd) {
  auto it = fds_.find(fd);
  if (it == fds_.end()) return -EBADF;
  if (it->second.kind == GuestFd::Kind::Host) ::close(it->second.host);
  const uint64_t file = it->second.file;
  fds_.erase(it);
  for (const auto& [other, f] : fds_)
    if (f.file == file) return 0;  // a dup keeps the file open, and its epoll items
  for (auto& [other, f] : fds_)
    if (f.kind == GuestFd::Kind::Epoll) f.epoll->forget(file);
  return 0;
}

int GuestFdTable::fd_of_item(const GuestEpoll::Key& key) const {
  if (const GuestFd* f = get(key.fd); f && f->file == key.file) return key.fd;
  for (const auto& [fd, f] : fds_)
    if (f.file == key.file) return fd;
  return -1;
}

std::vector<const GuestEpoll*> GuestFdTable::epoll_sets() const {
  std::vector<const GuestEpoll*> out;
  for (const auto& [fd, f] : fds_)
    if (f.kind == GuestFd::Kind::Epoll && std::find(out.begin(), out.end(), f.epoll.get()) == out.end())
      out.push_back(f.epoll.get());
  return out;
}

int GuestFdTable::copy_of(const GuestFd& f, bool cloexec, GuestFd& out) const {
  out = f;
  out.cloexec = cloexec;
  if (f.kind == GuestFd::Kind::Host) {
    // A host dup shares the file offset and status flags, as a guest dup does.
    out.host = ::fcntl(f.host, F_DUPFD_CLOEXEC, 0);
    if (out.host < 0) return -errno;
  }
  return 0;
}

int GuestFdTable::dup(int fd, int lowest, bool cloexec) {
  const GuestFd* f = get(fd);
  if (!f) return -EBADF;
  if (lowest < 0 || lowest >= max_fds_) return -EINVAL;
  GuestFd copy;
  if (int e = copy_of(*f, cloexec, copy); e < 0) return e;
  return add(std::move(copy), lowest);
}

int GuestFdTable::dup_to(int fd, int newfd, bool cloexec) {
  const GuestFd* f = get(fd);
  if (!f) return -EBADF;
  if (newfd < 0 || newfd >= max_fds_) return -EBADF;
  if (fd == newfd) return newfd;
  GuestFd copy;
  if (int e = copy_of(*f, cloexec, copy); e < 0) return e;
  close(newfd);
  fds_[newfd] = std::move(copy);
  return newfd;
}

int GuestFdTable::set_cloexec(int fd, bool on) {
  auto it = fds_.find(fd);
  if (it == fds_.end()) return -EBADF;
  it->second.cloexec = on;
  return 0;
}

std::vector<int> GuestFdTable::open_in(unsigned first, unsigned last) const {
  std::vector<int> out;
  if (first > unsigned(INT32_MAX)) return out;
  for (auto it = fds_.lower_bound(int(first)); it != fds_.end() && unsigned(it->first) <= last; ++it)
    out.push_back(it->first);
  return out;
}

int GuestFdTable::host_dir(int dirfd) const {
  if (dirfd == kAtFdcwd) return cwd_ >= 0 ? cwd_ : -ENOENT;
  const GuestFd* f = get(dirfd);
  if (!f) return -EBADF;
  if (f->kind != GuestFd::Kind::Host) return -ENOTDIR;
  return f->host;
}

int GuestFdTable::chdir_to(int host_dir_fd) {
  if (cwd_ >= 0) ::close(cwd_);
  cwd_ = host_dir_fd;
  return 0;
}

std::string GuestFdTable::cwd() const {
  std::string path = host_fd_target(cwd_);
  return path.empty() ? std::string("/") : path;
}

}  // namespace ttd::rec
