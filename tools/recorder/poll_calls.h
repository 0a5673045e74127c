// The readiness syscalls of the recorded process: poll, ppoll, select and
// pselect6 (poll_calls.cpp), epoll_create, epoll_create1, epoll_ctl,
// epoll_wait, epoll_pwait and epoll_pwait2 (poll_calls_epoll.cpp), over the
// descriptors whose readiness the recorder knows (docs/recording.md,
// "Threads"). Results (revents, fd sets, the remaining time, the events)
// are guest memory writes, so they are in the trace as the call's effects.
//
// Contract: LinuxKernel::blocks asks blocks() first: with nothing ready
// and a timeout that is not 0 the current thread is parked (GuestThreads::
// wait_poll, with the watches that may change and the timeout's end on
// the virtual clock), and runs the call again once a watched descriptor
// may be ready or the timeout passed; call() then answers. Descriptors,
// guest memory and threads are the kernel's (a LinuxKernel this class is
// a friend of); the epoll sets are GuestEpoll objects the descriptors
// hold. No state of its own.
#pragma once
#include <cstdint>
#include <vector>

#include "tools/recorder/guest_epoll.h"
#include "tools/recorder/guest_threads.h"
#include "tools/recorder/syscall_table.h"

namespace ttd::rec {

class LinuxKernel;

class PollCalls {
 public:
  explicit PollCalls(LinuxKernel& kernel) : k_(kernel) {}
  PollCalls(const PollCalls&) = delete;
  PollCalls& operator=(const PollCalls&) = delete;

  // The answer of a poll/select or epoll call (-ENOSYS for another call);
  // `steps` is the virtual clock.
  int64_t call(Sys sys, const uint64_t a[6], uint64_t steps);
  // Asked before call(): true if the current thread was parked.
  bool blocks(Sys sys, const uint64_t a[6], uint64_t steps);

 private:
  // poll_calls.cpp.
  struct PollRequest;
  int64_t poll_request(Sys sys, const uint64_t a[6], PollRequest& req);
  int64_t poll_scan(PollRequest& req, std::vector<IoWatch>* watches);
  bool poll_blocks(Sys sys, const uint64_t a[6], uint64_t steps);
  int64_t sys_poll(Sys sys, const uint64_t a[6], uint64_t steps);
  // poll_calls_epoll.cpp.
  struct EpollRequest;
  int64_t sys_epoll_create(bool create1, uint64_t arg);
  int64_t sys_epoll_ctl(int epfd, int op, int fd, uint64_t event);
  int64_t epoll_request(Sys sys, const uint64_t a[6], EpollRequest& req);
  // What epoll (and poll, for an eventfd or epoll fd) sees of a
  // descriptor; adds a watch for `want` to `watches` when a thread could
  // change it.
  GuestEpoll::Readiness epoll_probe(int fd, std::vector<IoWatch>* watches, short want);
  // An item of `set`, by whichever descriptor of its file is open.
  GuestEpoll::Readiness epoll_probe_item(const GuestEpoll& set, const GuestEpoll::Key& key,
                                         std::vector<IoWatch>* watches);
  bool epoll_blocks(Sys sys, const uint64_t a[6], uint64_t steps);
  int64_t sys_epoll_wait(Sys sys, const uint64_t a[6]);

  LinuxKernel& k_;
};

}  // namespace ttd::rec
