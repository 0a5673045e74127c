// The guest's file descriptors and working directory. Guest fds 0-2 start
// as the emulated standard streams (pipe-like, see linux_kernel_io.cpp);
// every other guest fd owns a descriptor of the recorder's process, opened
// on the host as the program asked, except eventfds and epoll instances,
// which the recorder keeps itself (guest_eventfd.h, guest_epoll.h), and timerfds (guest_timerfd.h). The working directory is a host
// O_PATH descriptor, so the guest's chdir never moves the recorder's.
//
// Contract: the table owns every host descriptor it holds and closes them
// when destroyed. Calls return a guest fd or 0 on success, -errno on
// failure (the value the guest sees).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/recorder/guest_epoll.h"
#include "tools/recorder/guest_dir_listing.h"
#include "tools/recorder/guest_eventfd.h"
#include "tools/recorder/guest_timerfd.h"

namespace ttd::rec {

struct GuestFd {
  enum class Kind : unsigned char { StdStream, Host, Eventfd, Epoll, Timerfd };
  Kind kind = Kind::Host;
  int stream = 0;      // StdStream: 0 stdin, 1 stdout, 2 stderr
  int host = -1;       // Host: the recorder's descriptor
  bool cloexec = false;
  bool pipe = false;   // Host: an end of a pipe the guest made (pipe2), so reads and writes can wait for a thread
  uint64_t pipe_id = 0; // a pipe or socket: which one (both ends and their dups share it), to count its changes
  // Host: a socket (socket_calls.cpp). Its reads, writes, accept
  // and connect wait as a pipe's do; `socket_outside` says its readiness
  // comes from outside the process (all but socketpair's), so the
  // recorder may wait on the host for it.
  bool socket = false;
  bool socket_outside = false;
  // Host, neither: a FIFO, a terminal or other character device, a socket
  // the program did not make (fstat at add()): another process makes it
  // ready, so reads, writes and polls ask the host (outside_fds.h).
  // Files are always ready.
  bool outside = false;
  bool pidfd = false;         // Host: a pidfd (linux_kernel_pidfd.cpp), which another process's end makes ready
  uint64_t dev = 0, ino = 0;  // Host, a regular file: which (set by add(); 0: not one)
  std::string path;    // what the guest opened (names file mappings)
  // The open file description: set by add() for a new one, kept by dups
  // (an epoll item lives while a descriptor of its file is open).
  uint64_t file = 0;
  // Eventfd / Epoll: the object, shared by dups as Linux shares the file.
  // A Timerfd's eventfd is its counter of unread expirations.
  std::shared_ptr<GuestEventfd> eventfd;
  std::shared_ptr<GuestEpoll> epoll;
  std::shared_ptr<GuestTimerfd> timerfd;
  // Host: a directory whose entries the recorder lists instead of the
  // host (/proc/self/fd); the host descriptor answers fstat and fchdir.
  std::shared_ptr<GuestDirListing> listing;
};

class GuestFdTable {
 public:
  // Highest guest fd + 1: RLIMIT_NOFILE's soft limit (guest_rlimits.h),
  // which the table carries through execve as Linux keeps it.
  int max_fds() const { return max_fds_; }
  void set_max_fds(int n) { max_fds_ = n; }
  static constexpr int kAtFdcwd = -100;

  GuestFdTable();
  ~GuestFdTable();
  GuestFdTable(const GuestFdTable&) = delete;
  GuestFdTable& operator=(const GuestFdTable&) = delete;

  const GuestFd* get(int fd) const;
  // Takes ownership of `f.host`; the lowest free guest fd >= `lowest`.
  int add(GuestFd f, int lowest = 0);
  // When fd was the last descriptor of its open file, also drops that
  // file's items from every epoll set (as Linux does).
  int close(int fd);
  // The descriptor an epoll item watches: its own fd if that is still of
  // the item's file, else another descriptor of the file (-1: none).
  int fd_of_item(const GuestEpoll::Key& key) const;
  // Every epoll set a descriptor refers to, once each.
  std::vector<const GuestEpoll*> epoll_sets() const;
  // dup / F_DUPFD: a copy on the lowest free fd >= lowest.
  int dup(int fd, int lowest, bool cloexec);
  // dup2 / dup3: a copy on exactly `newfd`, closing what was there.
  int dup_to(int fd, int newfd, bool cloexec);
  int set_cloexec(int fd, bool on);
  // The open descriptors in [first, last], ascending (close_range).
  std::vector<int> open_in(unsigned first, unsigned last) const;
  // (guest fd, host fd) of every descriptor an execve keeps: not
  // close-on-exec, and a host descriptor (a standard stream: the
  // recorder's own 0-2). Eventfds and epoll sets live in the recorder and
  // cannot be handed to another program.
  std::vector<std::pair<int, int>> inherited_by_exec() const;
  // execve of the recorded process (guest_execve.h): closes every
  // close-on-exec descriptor, as Linux does at the point of no return.
  void close_on_exec();
  // Hands the whole table (descriptors, working directory) to the next
  // program image's kernel.
  void swap(GuestFdTable& other) noexcept;

  // The host directory descriptor for a guest dirfd argument (AT_FDCWD or
  // an open guest fd): -EBADF, -ENOTDIR for a standard stream.
  int host_dir(int dirfd) const;
  int chdir_to(int host_dir_fd);  // takes ownership
  std::string cwd() const;        // absolute path of the working directory

 private:
  int max_fds_ = 1024;
  int copy_of(const GuestFd& f, bool cloexec, GuestFd& out) const;
  std::map<int, GuestFd> fds_;
  int cwd_ = -1;
  uint64_t next_file_ = 1;
};

}  // namespace ttd::rec
