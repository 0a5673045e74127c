// futex: wait, wake, requeue, wake_op and their bitset forms, with their
// timeouts on the virtual clock; the PI and requeue-PI operations are
// futex_calls_pi_robust.cpp's and futex_calls_requeue_pi.cpp's. A wait
// parks only its thread (blocks()); the other threads run meanwhile.
#include "tools/recorder/futex_calls.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tools/recorder/host_wait_clock.h"
#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

bool is_wait(uint32_t cmd) { return cmd == kFutexWait || cmd == kFutexWaitBitset; }

int32_t sign_extend12(uint32_t v) { return int32_t(v << 20) >> 20; }

}  // namespace

int64_t FutexCalls::call(Sys sys, const uint64_t a[6]) {
  switch (sys) {
    case Sys::Futex: return sys_futex(a);
    case Sys::SetRobustList: return sys_set_robust_list(a[0], a[1]);
    case Sys::GetRobustList: return sys_get_robust_list(a[0], a[1], a[2]);
    default: return -ENOSYS;
  }
}

void FutexCalls::thread_exits(GuestThread& t) {
  release_robust_list(t);
  hand_over_pi_locks(t.tid);
}

bool FutexCalls::has_requeue_pi_waiter(uint64_t addr) {
  for (const GuestThread* t : k_.threads_.futex_waiters(addr))
    if (t->requeue_pi_target) return true;
  return false;
}

int64_t FutexCalls::timeout_end(const uint64_t a[6], std::optional<uint64_t>& end) {
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
  const int clock = realtime ? kClockRealtime : kClockMonotonic;
  if (const int64_t e = k_.sleep_end(clock, cmd == kFutexWait ? 0 : kTimerAbstime, a[3], k_.now_, until)) return e;
  end = until;
  return 0;
}

bool FutexCalls::blocks(const uint64_t a[6]) {
  const uint32_t cmd = uint32_t(a[1]) & kFutexCmdMask;
  if (cmd == kFutexLockPi || cmd == kFutexLockPi2) return pi_lock_blocks(a);
  if (cmd == kFutexWaitRequeuePi) return wait_requeue_pi_blocks(a);
  if (!is_wait(cmd) || k_.threads_.current().wake_result) return false;
  std::optional<uint64_t> end;
  if (timeout_end(a, end) != 0) return false;  // call() reports the bad timeout
  const uint32_t bitset = cmd == kFutexWaitBitset ? uint32_t(a[5]) : ~0u;
  uint8_t word[4];
  if (bitset == 0 || (a[0] & 3) || !k_.copy_from_user(a[0], word)) return false;  // call() reports the error
  uint32_t value;
  std::memcpy(&value, word, 4);
  if (value != uint32_t(a[2])) return false;  // call() says EAGAIN
  const bool on_shared = shared(a[0]);
  if (on_shared && k_.child_waits_on_host()) return false;  // call() waits on the host
  k_.threads_.wait(a[0], bitset, end.has_value());
  GuestThread& t = k_.threads_.current();
  t.shared_word.reset();
  if (on_shared) {
    t.shared_word = value;
    t.shared_wakes = k_.mem_.shared().wakes();
  }
  k_.end_wait_at(end);
  return true;
}

bool FutexCalls::shared(uint64_t addr) const { return k_.mem_.shared().overlaps(addr, 4); }

int64_t FutexCalls::host_wait(uint64_t addr, uint32_t val, std::optional<uint64_t> end) {
  auto* word = reinterpret_cast<uint32_t*>(k_.mem_.shared().host_address(addr));
  timespec left{};
  if (end) {
    // The virtual time left, waited in real time (the child is not recorded).
    if (*end <= k_.now_) return -ETIMEDOUT;
    left = to_timespec(*end - k_.now_);
  }
  const uint64_t since = LinuxKernel::steady_ns();
  const long r = ::syscall(SYS_futex, word, FUTEX_WAIT, val, end ? &left : nullptr, nullptr, 0);
  const int err = errno;
  k_.note_host_wait(since);  // the child's clock moves on by the wall time waited
  if (r == 0) return 0;
  if (err == EINTR) k_.raise_host_signals();
  return -err;
}

uint32_t FutexCalls::host_wake(uint64_t addr, uint32_t n) {
  if (n == 0) return 0;
  k_.mem_.shared().note_wake();
  const long r = ::syscall(SYS_futex, k_.mem_.shared().host_address(addr), FUTEX_WAKE, n, nullptr, nullptr, 0);
  return r > 0 ? uint32_t(r) : 0;
}

int64_t FutexCalls::sys_futex(const uint64_t a[6]) {
  const uint64_t addr = a[0];
  const uint32_t cmd = uint32_t(a[1]) & kFutexCmdMask;
  const uint32_t val = uint32_t(a[2]);
  auto read_word = [&](uint64_t at, uint32_t& v) {
    uint8_t b[4];
    if ((at & 3) || !k_.copy_from_user(at, b)) return false;
    std::memcpy(&v, b, 4);
    return true;
  };
  uint32_t word = 0;
  switch (cmd) {
    case kFutexWait:
    case kFutexWaitBitset: {
      GuestThread& t = k_.threads_.current();
      if (t.wake_result) {  // back from waiting (blocks() parked it)
        const int64_t r = *t.wake_result;
        t.wake_result.reset();
        return r;
      }
      std::optional<uint64_t> end;
      if (const int64_t e = timeout_end(a, end)) return e;  // Linux checks it first
      if (cmd == kFutexWaitBitset && uint32_t(a[5]) == 0) return -EINVAL;
      if (addr & 3) return -EINVAL;
      if (!read_word(addr, word)) return -EFAULT;
      if (word == val && k_.child_waits_on_host() && shared(addr)) return host_wait(addr, val, end);
      return -EAGAIN;  // the word changed before we could wait
    }
    // A FUTEX_WAIT_REQUEUE_PI waiter can only be woken by
    // FUTEX_CMP_REQUEUE_PI: Linux's wake and requeue say EINVAL.
    case kFutexWake:
    case kFutexWakeBitset: {
      const uint32_t bitset = cmd == kFutexWakeBitset ? uint32_t(a[5]) : ~0u;
      if (bitset == 0 || has_requeue_pi_waiter(addr)) return -EINVAL;
      const uint32_t woken = k_.threads_.wake(addr, val, bitset);
      return shared(addr) ? woken + host_wake(addr, val - woken) : woken;
    }
    case kFutexCmpRequeue:
      if (!read_word(addr, word)) return -EFAULT;
      if (word != uint32_t(a[5])) return -EAGAIN;
      [[fallthrough]];
    case kFutexRequeue:
      if (has_requeue_pi_waiter(addr)) return -EINVAL;
      return k_.threads_.requeue(addr, val, uint32_t(a[3]), a[4]);
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
      if (!k_.put_u32s(addr2, {now})) return -EFAULT;
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
      uint32_t woken = k_.threads_.wake(addr, val);
      if (hit) woken += k_.threads_.wake(addr2, uint32_t(a[3]));
      return woken;
    }
    case kFutexLockPi:
    case kFutexLockPi2:
    case kFutexTrylockPi:
    case kFutexUnlockPi: return sys_futex_pi(cmd, addr);
    default:
      // FUTEX_WAIT_MULTIPLE ... (operation 14 and up)
      k_.note_unsupported(k_.current_, "futex");
      k_.unsupported_what_ = "futex operation " + std::to_string(cmd) + " (only wait, wake, requeue, wake_op, "
                          "their bitset forms, the PI lock, trylock and unlock, and the requeue-PI pair "
                          "are emulated)";
      return -ENOSYS;
  }
}

}  // namespace ttd::rec
