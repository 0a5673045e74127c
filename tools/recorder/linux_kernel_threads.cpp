// Threads: clone/clone3 with CLONE_THREAD, thread exit with the
// clear-child-tid wake (the futexes, the robust-list cleanup and the PI
// locks handed on at exit are futex_calls.h's). New processes (clone without
// CLONE_THREAD) are linux_kernel_process.cpp's. The CPU side of a new
// thread and the switching between threads are the recording session's
// (thread_contexts.h).
#include <cerrno>
#include <cstring>

#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

// What a thread may ask for; the low byte (exit signal) must be 0 for one.
constexpr uint64_t kThreadFlags = kCloneVm | kCloneFs | kCloneFiles | kCloneSighand | kCloneThread | kCloneSysvsem |
                                  kCloneSettls | kCloneParentSettid | kCloneChildCleartid | kCloneDetached |
                                  kCloneUntraced | kCloneChildSettid;

// Threads a guest may have made in all (RLIMIT_NPROC-like); clone then
// fails with EAGAIN as Linux does at its limit.
constexpr size_t kMaxGuestThreads = 1024;

}  // namespace

void LinuxKernel::end_wait_at(std::optional<uint64_t> end) {
  if (!end) return;
  threads_.current().wait_end = end;  // an end already past times out at the next look
  update_timer_due();
}

int64_t LinuxKernel::sys_clone(uint64_t flags, uint64_t stack, uint64_t parent_tid, uint64_t child_tid,
                               uint64_t tls, SyscallOutcome& out) {
  if (!(flags & kCloneThread)) return sys_new_process(flags, stack, parent_tid, child_tid, tls, out);
  if ((flags & (kCloneVm | kCloneSighand)) != (kCloneVm | kCloneSighand)) return -EINVAL;  // as Linux
  if (flags & ~kThreadFlags) {
    note_unsupported(current_, arch_.syscalls().lookup(current_).name);
    char buf[64];
    std::snprintf(buf, sizeof buf, "flags 0x%llx", (unsigned long long)(flags & ~kThreadFlags));
    unsupported_what_ = std::string("a thread with clone ") + buf + " (not emulated)";
    return -ENOSYS;
  }
  if (threads_.count() >= kMaxGuestThreads) return -EAGAIN;
  const uint64_t tid = threads_.by_number(1)->tid + threads_.count();
  if ((flags & kCloneParentSettid) && !put_u32s(parent_tid, {uint32_t(tid)})) return -EFAULT;
  if ((flags & kCloneChildSettid) && !put_u32s(child_tid, {uint32_t(tid)})) return -EFAULT;
  GuestThread& child = threads_.add();
  if (flags & kCloneChildCleartid) child.clear_child_tid = child_tid;
  NewThread nt;
  nt.number = child.number;
  nt.stack = stack;
  if (flags & kCloneSettls) nt.tls = tls;
  out.new_thread = nt;
  return int64_t(child.tid);
}

int64_t LinuxKernel::sys_clone3(uint64_t args, uint64_t size, SyscallOutcome& out) {
  // struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal,
  // stack, stack_size, tls (then set_tid, set_tid_size, cgroup).
  constexpr uint64_t kVer0 = 64;
  if (size < kVer0 || size > 4096) return -EINVAL;
  uint8_t raw[kVer0];
  if (!copy_from_user(args, raw)) return -EFAULT;
  uint64_t f[8];
  std::memcpy(f, raw, sizeof f);
  const uint64_t flags = f[0], exit_signal = f[4], stack = f[5], stack_size = f[6];
  if (exit_signal > 64 || ((flags & kCloneThread) && exit_signal)) return -EINVAL;
  // clone3 gives the stack's lowest address and size; the thread starts at its top.
  return sys_clone(flags | exit_signal, stack ? stack + stack_size : 0, f[3], f[2], f[7], out);
}

int64_t LinuxKernel::sys_exit_thread(int code, SyscallOutcome& out) {
  if (threads_.live() <= 1) {  // the last thread: the process ends
    out.exited = true;
    out.exit_code = code;
    return 0;
  }
  // As Linux's exit: the robust futexes the thread still holds are marked
  // FUTEX_OWNER_DIED (a waiter is woken), the PI locks it holds go to
  // their next waiter; then the kernel clears the thread's clear-child-tid
  // word and wakes one waiter there (how pthread_join learns the thread
  // is gone). All are effects of the exit step.
  futexes_.thread_exits(threads_.current());
  const uint64_t ctid = threads_.current().clear_child_tid;
  if (ctid && put_u32s(ctid, {0})) threads_.wake(ctid, 1);
  threads_.exit_current();
  out.thread_exited = true;
  return 0;
}

}  // namespace ttd::rec
