// The futex syscalls of the recorded process's threads: futex (wait, wake,
// requeue, wake_op and their bitset forms: futex_calls.cpp; the
// priority-inheritance lock, trylock and unlock: futex_calls_pi_robust.cpp;
// FUTEX_WAIT_REQUEUE_PI and FUTEX_CMP_REQUEUE_PI:
// futex_calls_requeue_pi.cpp), set_robust_list and get_robust_list, and
// what a dying thread's robust list and PI locks become. Lock words follow
// Linux's protocol (kernel/futex/); a change the kernel makes to one is a
// guest memory write, so it is in the trace.
//
// Contract: LinuxKernel::blocks asks blocks() before a futex call runs: a
// wait parks the current thread (GuestThreads::wait, wait_pi) with its
// timeout's end on the virtual clock, and the thread runs the call again
// once woken, handed the lock or timed out (GuestThread::wake_result), when
// call() answers. The waiters themselves are GuestThreads'; guest memory
// and the clock are reached through the kernel (a LinuxKernel this class
// is a friend of). No state of its own.
#pragma once
#include <cstdint>
#include <optional>

#include "tools/recorder/syscall_table.h"

namespace ttd::rec {

class LinuxKernel;
struct GuestThread;

class FutexCalls {
 public:
  explicit FutexCalls(LinuxKernel& kernel) : k_(kernel) {}
  FutexCalls(const FutexCalls&) = delete;
  FutexCalls& operator=(const FutexCalls&) = delete;

  // futex, set_robust_list, get_robust_list: the answer (-ENOSYS for
  // another call, and for a futex operation not emulated, which the
  // kernel notes as unsupported).
  int64_t call(Sys sys, const uint64_t a[6]);
  // Asked before futex(a) runs: true if the current thread was parked.
  bool blocks(const uint64_t a[6]);
  // Thread `t` exits (not the process's last): its robust futexes get
  // FUTEX_OWNER_DIED and a wake, the PI locks it holds with waiters go to
  // their next owner (guest memory writes of the exit step).
  void thread_exits(GuestThread& t);

 private:
  int64_t sys_futex(const uint64_t a[6]);
  // A futex call's timeout as the virtual clock's ns its wait ends at
  // (nullopt: none, or a call without one); -errno for a bad timespec.
  int64_t timeout_end(const uint64_t a[6], std::optional<uint64_t>& end);
  bool has_requeue_pi_waiter(uint64_t addr);
  // Words in memory shared with other processes (host_shared_memory.h):
  // a fork's unrecorded child waits on the host's futex (it has no other
  // thread to run); a wake wakes the other processes' waiters too, on the
  // host, after this process's own.
  bool shared(uint64_t addr) const;
  int64_t host_wait(uint64_t addr, uint32_t val, std::optional<uint64_t> end);
  uint32_t host_wake(uint64_t addr, uint32_t n);
  // futex_calls_pi_robust.cpp.
  bool pi_lock_blocks(const uint64_t a[6]);
  int64_t sys_futex_pi(uint32_t cmd, uint64_t addr);
  int64_t sys_set_robust_list(uint64_t head, uint64_t len);
  int64_t sys_get_robust_list(uint64_t tid, uint64_t head_ptr, uint64_t len_ptr);
  void release_robust_list(GuestThread& t);
  bool robust_futex_death(uint64_t addr, uint64_t tid, bool pi, bool pending);
  void hand_over_pi_locks(uint64_t dead_tid);
  // futex_calls_requeue_pi.cpp.
  bool wait_requeue_pi_blocks(const uint64_t a[6]);
  int64_t sys_wait_requeue_pi(const uint64_t a[6]);
  int64_t sys_cmp_requeue_pi(const uint64_t a[6]);

  LinuxKernel& k_;
};

}  // namespace ttd::rec
