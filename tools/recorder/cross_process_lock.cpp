#include "tools/recorder/cross_process_lock.h"

#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <new>

namespace ttd::rec {

namespace {

long futex(std::atomic<uint32_t>* word, int op, uint32_t val, const timespec* timeout) {
  return ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), op, val, timeout, nullptr, 0);
}

}  // namespace

CrossProcessLock::CrossProcessLock() {
  void* p = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  shared_ = new (p) Shared{};
}

CrossProcessLock::~CrossProcessLock() {
  if (held_) unlock();
  ::munmap(shared_, 4096);
}

void CrossProcessLock::hold() {
  if (held_) return;
  uint32_t expected = 0;
  if (!shared_->state.compare_exchange_strong(expected, 1, std::memory_order_acquire)) {
    // Contended: mark it so, and sleep on the word (Drepper's mutex 2).
    const timespec patience{0, 50'000'000};
    for (uint32_t c = shared_->state.exchange(2, std::memory_order_acquire); c != 0;
         c = shared_->state.exchange(2, std::memory_order_acquire)) {
      if (futex(&shared_->state, FUTEX_WAIT, 2, &patience) < 0 && errno == ETIMEDOUT) {
        const int32_t owner = shared_->owner.load(std::memory_order_relaxed);
        // The holder died holding it: take it over.
        if (owner > 0 && ::kill(owner, 0) < 0 && errno == ESRCH) {
          shared_->state.store(2, std::memory_order_seq_cst);
          break;
        }
      }
    }
  }
  if (!pid_) pid_ = int32_t(::getpid());
  shared_->owner.store(pid_, std::memory_order_relaxed);
  held_ = true;
}

void CrossProcessLock::unlock() {
  held_ = false;
  shared_->owner.store(0, std::memory_order_relaxed);
  if (shared_->state.exchange(0, std::memory_order_release) == 2) futex(&shared_->state, FUTEX_WAKE, 1, nullptr);
}

}  // namespace ttd::rec
