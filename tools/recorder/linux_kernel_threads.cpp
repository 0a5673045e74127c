// Threads: clone/clone3 with CLONE_THREAD, futex, thread exit with the
// clear-child-tid wake (PI locks and the robust-list cleanup at exit are
// in linux_kernel_pi_robust.cpp). New processes (clone without
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

enum FutexCmd : uint32_t {
  kFutexWait = 0, kFutexWake = 1, kFutexRequeue = 3, kFutexCmpRequeue = 4, kFutexWakeOp = 5,
  kFutexLockPi = 6, kFutexUnlockPi = 7, kFutexTrylockPi = 8, kFutexWaitBitset = 9, kFutexWakeBitset = 10,
  kFutexWaitRequeuePi = 11, kFutexCmpRequeuePi = 12, kFutexLockPi2 = 13,
};
constexpr uint32_t kFutexCmdMask = 127;  // without FUTEX_PRIVATE_FLAG (128) and FUTEX_CLOCK_REALTIME (256)
constexpr uint32_t kFutexClockRealtime = 256;

bool is_wait(uint32_t cmd) { return cmd == kFutexWait || cmd == kFutexWaitBitset; }

int32_t sign_extend12(uint32_t v) { return int32_t(v << 20) >> 20; }

}  // namespace

bool LinuxKernel::has_requeue_pi_waiter(uint64_t addr) {
  for (const GuestThread* t : threads_.futex_waiters(addr))
    if (t->requeue_pi_target) return true;
  return false;
}

int64_t LinuxKernel::futex_timeout_end(const uint64_t a[6], std::optional<uint64_t>& end) {
  end.reset();
  const uint32_t op = uint32_t(a[1]), cmd = op & kFutexCmdMask;
  const bool has_timeout = cmd == kFutexWait || cmd == kFutexWaitBitset || cmd == kFutexLockPi ||
                           cmd == kFutexLockPi2 || cmd == kFutexWaitRequeuePi;
  if (!has_timeout || a[3] == 0) return 0;
  // Linux (futex_init_timeout): FUTEX_WAIT's is relative; the others' are
  // absolute on CLOCK_MONOTONIC, or CLOCK_REALTIME with
  // FUTEX_CLOCK_REALTIME and always for FUTEX_LOCK_PI.
  const bool realtime = cmd == kFutexLockPi || (op & kFutexClockRealtime);
  uint64_t until = 0;
  if (const int64_t e = sleep_end(realtime ? kClockRealtime : kClockMonotonic, cmd == kFutexWait ? 0 : kTimerAbstime,
                                  a[3], now_, until))
    return e;
  end = until;
  return 0;
}

void LinuxKernel::end_wait_at(std::optional<uint64_t> end) {
  if (!end) return;
  threads_.current().wait_end = end;  // an end already past times out at the next look
  update_timer_due();
}

bool LinuxKernel::futex_blocks(const uint64_t a[6]) {
  const uint32_t cmd = uint32_t(a[1]) & kFutexCmdMask;
  if (cmd == kFutexLockPi || cmd == kFutexLockPi2) return pi_lock_blocks(a);
  if (cmd == kFutexWaitRequeuePi) return wait_requeue_pi_blocks(a);
  if (!is_wait(cmd) || threads_.current().wake_result) return false;
  std::optional<uint64_t> end;
  if (futex_timeout_end(a, end) != 0) return false;  // call() reports the bad timeout
  const uint32_t bitset = cmd == kFutexWaitBitset ? uint32_t(a[5]) : ~0u;
  uint8_t word[4];
  if (bitset == 0 || (a[0] & 3) || !copy_from_user(a[0], word)) return false;  // call() reports the error
  uint32_t value;
  std::memcpy(&value, word, 4);
  if (value != uint32_t(a[2])) return false;  // call() says EAGAIN
  threads_.wait(a[0], bitset, end.has_value());
  end_wait_at(end);
  return true;
}

int64_t LinuxKernel::sys_futex(const uint64_t a[6]) {
  const uint64_t addr = a[0];
  const uint32_t cmd = uint32_t(a[1]) & kFutexCmdMask;
  const uint32_t val = uint32_t(a[2]);
  auto read_word = [&](uint64_t at, uint32_t& v) {
    uint8_t b[4];
    if ((at & 3) || !copy_from_user(at, b)) return false;
    std::memcpy(&v, b, 4);
    return true;
  };
  uint32_t word = 0;
  switch (cmd) {
    case kFutexWait:
    case kFutexWaitBitset: {
      GuestThread& t = threads_.current();
      if (t.wake_result) {  // back from waiting (blocks() parked it)
        const int64_t r = *t.wake_result;
        t.wake_result.reset();
        return r;
      }
      std::optional<uint64_t> end;
      if (const int64_t e = futex_timeout_end(a, end)) return e;  // Linux checks it first
      if (cmd == kFutexWaitBitset && uint32_t(a[5]) == 0) return -EINVAL;
      if (addr & 3) return -EINVAL;
      if (!read_word(addr, word)) return -EFAULT;
      return -EAGAIN;  // the word changed before we could wait
    }
    // A FUTEX_WAIT_REQUEUE_PI waiter can only be woken by
    // FUTEX_CMP_REQUEUE_PI: Linux's wake and requeue say EINVAL.
    case kFutexWake:
      if (has_requeue_pi_waiter(addr)) return -EINVAL;
      return threads_.wake(addr, val);
    case kFutexWakeBitset:
      if (uint32_t(a[5]) == 0 || has_requeue_pi_waiter(addr)) return -EINVAL;
      return threads_.wake(addr, val, uint32_t(a[5]));
    case kFutexCmpRequeue:
      if (!read_word(addr, word)) return -EFAULT;
      if (word != uint32_t(a[5])) return -EAGAIN;
      [[fallthrough]];
    case kFutexRequeue:
      if (has_requeue_pi_waiter(addr)) return -EINVAL;
      return threads_.requeue(addr, val, uint32_t(a[3]), a[4]);
    case kFutexWaitRequeuePi: return sys_wait_requeue_pi(a);
    case kFutexCmpRequeuePi: return sys_cmp_requeue_pi(a);
    case kFutexWakeOp: {
      // *uaddr2 = old OP oparg; wake uaddr; if (old CMP cmparg) wake uaddr2 too.
      const uint64_t addr2 = a[4];
      const uint32_t enc = uint32_t(a[5]);
      const uint32_t op = (enc >> 28) & 7, cmp = (enc >> 24) & 15;
      int32_t oparg = sign_extend12((enc >> 12) & 0xfff);
      const int32_t cmparg = sign_extend12(enc & 0xfff);
      if ((enc >> 28) & 8) oparg = int32_t(1u << (uint32_t(oparg) & 31));
      uint32_t old = 0;
      if (!read_word(addr2, old)) return -EFAULT;
      uint32_t now = old;
      switch (op) {
        case 0: now = uint32_t(oparg); break;
        case 1: now = old + uint32_t(oparg); break;
        case 2: now = old | uint32_t(oparg); break;
        case 3: now = old & ~uint32_t(oparg); break;
        case 4: now = old ^ uint32_t(oparg); break;
        default: return -ENOSYS;
      }
      if (!put_u32s(addr2, {now})) return -EFAULT;
      const int32_t o = int32_t(old);
      bool hit = false;
      switch (cmp) {
        case 0: hit = o == cmparg; break;
        case 1: hit = o != cmparg; break;
        case 2: hit = o < cmparg; break;
        case 3: hit = o <= cmparg; break;
        case 4: hit = o > cmparg; break;
        case 5: hit = o >= cmparg; break;
        default: return -ENOSYS;
      }
      uint32_t woken = threads_.wake(addr, val);
      if (hit) woken += threads_.wake(addr2, uint32_t(a[3]));
      return woken;
    }
    case kFutexLockPi:
    case kFutexLockPi2:
    case kFutexTrylockPi:
    case kFutexUnlockPi: return sys_futex_pi(cmd, addr);
    default:
      // FUTEX_WAIT_MULTIPLE ... (operation 14 and up)
      note_unsupported(current_, "futex");
      unsupported_what_ = "futex operation " + std::to_string(cmd) + " (only wait, wake, requeue, wake_op, "
                          "their bitset forms, the PI lock, trylock and unlock, and the requeue-PI pair "
                          "are emulated)";
      return -ENOSYS;
  }
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
  release_robust_list(threads_.current());
  hand_over_pi_locks(threads_.current().tid);
  const uint64_t ctid = threads_.current().clear_child_tid;
  if (ctid && put_u32s(ctid, {0})) threads_.wake(ctid, 1);
  threads_.exit_current();
  out.thread_exited = true;
  return 0;
}

}  // namespace ttd::rec
