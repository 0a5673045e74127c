// Priority-inheritance futexes (FUTEX_LOCK_PI, FUTEX_LOCK_PI2,
// FUTEX_TRYLOCK_PI, FUTEX_UNLOCK_PI) and robust futex lists, with Linux's
// word protocol (kernel/futex/pi.c, core.c): the lock word holds the
// owner's tid, FUTEX_WAITERS when a thread waits in the kernel (so the
// owner's unlock comes to the kernel), FUTEX_OWNER_DIED when its owner
// died holding it. Priorities mean nothing in one emulator that runs one
// thread at a time: a PI lock is a FIFO lock handed to the longest waiter.
#include <cerrno>
#include <cstring>

#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/futex_calls.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

namespace {

constexpr uint32_t kLockPi = 6, kUnlockPi = 7, kTrylockPi = 8, kLockPi2 = 13;
// struct robust_list_head on 64-bit: list.next, futex_offset, list_op_pending.
constexpr uint64_t kRobustHeadSize = 24;
// Linux's ROBUST_LIST_LIMIT: a list longer than this (or a loop) is cut
// there, so a hostile list cannot keep the recorder walking.
constexpr unsigned kRobustListLimit = 2048;

}  // namespace

bool FutexCalls::pi_lock_blocks(const uint64_t a[6]) {
  GuestThread& t = k_.threads_.current();
  if (t.wake_result) return false;  // handed the lock, or timed out: call() answers
  uint8_t b[4];
  if ((a[0] & 3) || !k_.copy_from_user(a[0], b)) return false;
  uint32_t word;
  std::memcpy(&word, b, 4);
  const uint64_t owner = word & kFutexTidMask;
  if (owner == 0 || owner == t.tid || !k_.threads_.by_tid(owner)) return false;  // taken, EDEADLK or ESRCH
  std::optional<uint64_t> end;
  if (timeout_end(a, end) != 0) return false;  // call() reports the bad timeout
  // The first waiter sets FUTEX_WAITERS before it sleeps, so the owner's
  // unlock comes to the kernel; this write is the one effect of parking.
  if (!(word & kFutexWaiters) && !k_.put_u32s(a[0], {word | kFutexWaiters})) return false;  // EFAULT
  k_.threads_.wait_pi(a[0], owner, end.has_value());
  k_.end_wait_at(end);
  return true;
}

int64_t FutexCalls::sys_futex_pi(uint32_t cmd, uint64_t addr) {
  GuestThread& t = k_.threads_.current();
  if ((cmd == kLockPi || cmd == kLockPi2) && t.wake_result) {
    // Back from waiting: handed the lock (0, the word already says so) or timed out.
    const int64_t r = *t.wake_result;
    t.wake_result.reset();
    return r;
  }
  if (addr & 3) return -EINVAL;
  uint8_t b[4];
  if (!k_.copy_from_user(addr, b)) return -EFAULT;
  uint32_t word;
  std::memcpy(&word, b, 4);
  const uint64_t owner = word & kFutexTidMask;
  if (cmd == kUnlockPi) {
    if (owner != t.tid) return -EPERM;
    if (GuestThread* next = k_.threads_.first_pi_waiter(addr)) {
      // The longest waiter owns it now; FUTEX_WAITERS stays set so its
      // unlock comes here too.
      if (!k_.put_u32s(addr, {kFutexWaiters | uint32_t(next->tid)})) return -EFAULT;
      k_.threads_.hand_pi(addr, *next);
      return 0;
    }
    return k_.put_u32s(addr, {0}) ? 0 : -EFAULT;
  }
  if (owner == t.tid) return -EDEADLK;
  if (owner == 0) {
    // Free, or its owner died (FUTEX_OWNER_DIED is kept, so the C library
    // can report EOWNERDEAD).
    return k_.put_u32s(addr, {(word & kFutexOwnerDied) | uint32_t(t.tid)}) ? 0 : -EFAULT;
  }
  if (!k_.threads_.by_tid(owner)) return -ESRCH;
  // Held by another thread. A trylock leaves FUTEX_WAITERS set, as
  // Linux's does; a lock gets here only when blocks() could not set it.
  if (!(word & kFutexWaiters) && !k_.put_u32s(addr, {word | kFutexWaiters})) return -EFAULT;
  return cmd == kTrylockPi ? -EAGAIN : -EFAULT;
}

int64_t FutexCalls::sys_set_robust_list(uint64_t head, uint64_t len) {
  if (len != kRobustHeadSize) return -EINVAL;
  k_.threads_.current().robust_head = head;
  return 0;
}

int64_t FutexCalls::sys_get_robust_list(uint64_t tid, uint64_t head_ptr, uint64_t len_ptr) {
  const GuestThread* t = tid == 0 ? &k_.threads_.current() : k_.threads_.by_tid(tid);
  if (!t) return -ESRCH;
  if (!k_.put_u64s(len_ptr, {kRobustHeadSize})) return -EFAULT;
  return k_.put_u64s(head_ptr, {t->robust_head}) ? 0 : -EFAULT;
}

void FutexCalls::release_robust_list(GuestThread& t) {
  const uint64_t head = t.robust_head;
  if (!head) return;
  // Each pointer's bit 0 says the lock it leads to is a PI one.
  auto fetch = [&](uint64_t at, uint64_t& entry, bool& pi) {
    uint8_t b[8];
    if (!k_.copy_from_user(at, b)) return false;
    std::memcpy(&entry, b, 8);
    pi = entry & 1;
    entry &= ~uint64_t(1);
    return true;
  };
  uint64_t entry = 0, pending = 0, offset_raw = 0;
  bool pi = false, pending_pi = false;
  uint8_t b[8];
  if (!fetch(head, entry, pi) || !k_.copy_from_user(head + 8, b) || !fetch(head + 16, pending, pending_pi)) return;
  std::memcpy(&offset_raw, b, 8);  // futex_offset: signed, from an entry to its lock word
  for (unsigned left = kRobustListLimit; entry != head && left; --left) {
    uint64_t next = 0;
    bool next_pi = false;
    const bool more = fetch(entry, next, next_pi);
    // The lock being taken or released right now is handled last.
    if (entry != pending && !robust_futex_death(entry + offset_raw, t.tid, pi, false)) return;
    if (!more) return;
    entry = next;
    pi = next_pi;
  }
  if (pending) robust_futex_death(pending + offset_raw, t.tid, pending_pi, true);
}

// Linux's handle_futex_death: false stops the walk (a fault).
bool FutexCalls::robust_futex_death(uint64_t addr, uint64_t tid, bool pi, bool pending) {
  uint8_t b[4];
  if ((addr & 3) || !k_.copy_from_user(addr, b)) return false;
  uint32_t word;
  std::memcpy(&word, b, 4);
  if (pending && !pi && word == 0) {
    // Died between taking and listing an uncontended lock: a waiter may
    // have missed the wake the unlock would have given.
    k_.threads_.wake(addr, 1);
    return true;
  }
  if ((word & kFutexTidMask) != tid) return true;  // not held by the dead thread
  if (!k_.put_u32s(addr, {(word & kFutexWaiters) | kFutexOwnerDied})) return false;
  // PI locks go to their next owner in hand_over_pi_locks().
  if (!pi && (word & kFutexWaiters)) k_.threads_.wake(addr, 1);
  return true;
}

void FutexCalls::hand_over_pi_locks(uint64_t dead_tid) {
  for (uint64_t addr : k_.threads_.pi_locks_held_by(dead_tid)) {
    GuestThread* next = k_.threads_.first_pi_waiter(addr);
    uint8_t b[4];
    if (!next || !k_.copy_from_user(addr, b)) continue;
    uint32_t word;
    std::memcpy(&word, b, 4);
    // As the kernel's fix-up when the waiter takes the lock: its tid, the
    // waiters bit, and FUTEX_OWNER_DIED if the robust walk set it.
    if (k_.put_u32s(addr, {(word & kFutexOwnerDied) | kFutexWaiters | uint32_t(next->tid)}))
      k_.threads_.hand_pi(addr, *next);
  }
}

}  // namespace ttd::rec
