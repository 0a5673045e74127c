// FUTEX_WAIT_REQUEUE_PI and FUTEX_CMP_REQUEUE_PI, the pair a condition
// variable over a PI mutex uses (kernel/futex/requeue.c): the waiter waits
// on uaddr1 (the condition's word) and returns owning the PI lock at
// uaddr2. CMP_REQUEUE_PI, if *uaddr1 still holds val3, takes the lock for
// the longest waiter when it is free (tid | FUTEX_WAITERS, as the kernel's
// proxy lock does) and wakes it, and moves the others, up to nr_requeue
// more, to wait for the lock as FUTEX_LOCK_PI waiters do
// (futex_calls_pi_robust.cpp): the owner's FUTEX_UNLOCK_PI hands it on.
// Lock word changes are guest memory writes, so they are in the trace.
#include <cerrno>
#include <cstring>

#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/futex_calls.h"
#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

bool FutexCalls::wait_requeue_pi_blocks(const uint64_t a[6]) {
  GuestThread& t = k_.threads_.current();
  if (t.wake_result) return false;  // given the lock, or timed out: call() answers
  if (a[0] == a[4] || (a[0] & 3) || (a[4] & 3)) return false;  // call() says EINVAL
  uint8_t b[4];
  if (!k_.copy_from_user(a[0], b)) return false;
  uint32_t word;
  std::memcpy(&word, b, 4);
  if (word != uint32_t(a[2])) return false;  // call() says EAGAIN
  std::optional<uint64_t> end;
  if (timeout_end(a, end) != 0) return false;  // call() reports the bad timeout
  k_.threads_.wait(a[0], ~0u, end.has_value());
  k_.threads_.current().requeue_pi_target = a[4];
  k_.end_wait_at(end);  // kept when FUTEX_CMP_REQUEUE_PI moves it to the lock
  return true;
}

int64_t FutexCalls::sys_wait_requeue_pi(const uint64_t a[6]) {
  GuestThread& t = k_.threads_.current();
  if (t.wake_result) {  // back from waiting: owns uaddr2 (0) or timed out
    const int64_t r = *t.wake_result;
    t.wake_result.reset();
    return r;
  }
  std::optional<uint64_t> end;
  if (const int64_t e = timeout_end(a, end)) return e;
  if (a[0] == a[4] || (a[0] & 3) || (a[4] & 3)) return -EINVAL;
  uint8_t b[4];
  if (!k_.copy_from_user(a[0], b)) return -EFAULT;
  return -EAGAIN;  // the word changed before we could wait
}

int64_t FutexCalls::sys_cmp_requeue_pi(const uint64_t a[6]) {
  const uint64_t addr1 = a[0], addr2 = a[4];
  const int32_t nr_requeue = int32_t(a[3]);
  if (uint32_t(a[2]) != 1 || nr_requeue < 0 || addr1 == addr2 || (addr1 & 3) || (addr2 & 3)) return -EINVAL;
  auto read_word = [&](uint64_t at, uint32_t& v) {
    uint8_t b[4];
    if (!k_.copy_from_user(at, b)) return false;
    std::memcpy(&v, b, 4);
    return true;
  };
  uint32_t word1, word2;
  if (!read_word(addr1, word1) || !read_word(addr2, word2)) return -EFAULT;
  if (word1 != uint32_t(a[5])) return -EAGAIN;
  std::vector<GuestThread*> waiters = k_.threads_.futex_waiters(addr1);
  if (waiters.empty()) return 0;
  // Linux pairs the calls: a waiter that was not told this lock, or that
  // waits in a plain FUTEX_WAIT, is an error.
  for (GuestThread* w : waiters)
    if (w->requeue_pi_target != addr2) return -EINVAL;
  uint64_t owner = word2 & kFutexTidMask;
  if (owner == waiters.front()->tid) return -EDEADLK;
  if (owner && !k_.threads_.by_tid(owner)) return -ESRCH;
  int64_t count = 0;
  size_t next = 0;
  if (owner == 0) {
    // Free (or its owner died): the longest waiter gets it, woken.
    GuestThread& top = *waiters[next++];
    word2 = (word2 & kFutexOwnerDied) | kFutexWaiters | uint32_t(top.tid);
    if (!k_.put_u32s(addr2, {word2})) return -EFAULT;
    owner = top.tid;
    k_.threads_.give_pi(top);
    ++count;
  }
  // The rest wait for the lock: nr_requeue more, and the longest waiter
  // itself when the lock was held (so nr_requeue 0 still moves it).
  const size_t limit = size_t(nr_requeue) + 1;
  while (next < waiters.size() && size_t(count) < limit) {
    if (!(word2 & kFutexWaiters)) {
      word2 |= kFutexWaiters;  // the owner's unlock must come to the kernel
      if (!k_.put_u32s(addr2, {word2})) return count ? count : -EFAULT;
    }
    k_.threads_.move_to_pi(*waiters[next++], addr2, owner);
    ++count;
  }
  return count;
}

}  // namespace ttd::rec
