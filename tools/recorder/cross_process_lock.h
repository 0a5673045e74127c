// One lock shared by the recorder and every process it forks (a page of
// host MAP_SHARED memory made before the first fork): held while an
// emulated instruction accesses memory shared between processes.
//
// Why: Unicorn emulates one CPU, so an atomic instruction (lock cmpxchg,
// lock xadd, xchg, AArch64's store-exclusive) is a plain load, compute and
// store on the host. Two emulated processes doing that on one shared word
// could both take a semaphore, or a failed cmpxchg could write back the
// old value over the other's unlock. With this lock an instruction's
// accesses to shared memory are one critical section: taken at its first
// shared access (HostSharedMemory), released when the next instruction
// starts, at a syscall, or when the emulator stops.
//
// A holder that died (SIGKILL between the two) would stop the others for
// good: a waiter that has waited long checks that the holder's pid lives,
// and takes the lock from a dead one.
#pragma once
#include <atomic>
#include <cstdint>

namespace ttd::rec {

class CrossProcessLock {
 public:
  CrossProcessLock();
  ~CrossProcessLock();
  CrossProcessLock(const CrossProcessLock&) = delete;
  CrossProcessLock& operator=(const CrossProcessLock&) = delete;

  // Takes the lock unless this process holds it already.
  void hold();
  // Gives it back if held (cheap when not).
  void release() {
    if (held_) unlock();
  }
  bool held() const { return held_; }
  // Futex wakes on shared memory, counted across the processes: a thread
  // parked on a shared word wakes when this moves (a wake from another
  // process, even if the word changed back since).
  void note_wake() { shared_->wakes.fetch_add(1, std::memory_order_release); }
  uint64_t wakes() const { return shared_->wakes.load(std::memory_order_acquire); }
  // In a fork's child: the pid it records as holder is its own.
  void after_fork() { pid_ = 0; }

 private:
  struct Shared {
    std::atomic<uint32_t> state;  // 0 free, 1 taken, 2 taken with waiters (a futex word)
    std::atomic<int32_t> owner;   // the holder's host pid
    std::atomic<uint64_t> wakes;  // note_wake()
  };
  void unlock();
  Shared* shared_ = nullptr;
  bool held_ = false;
  int32_t pid_ = 0;  // getpid(), asked once per process
};

}  // namespace ttd::rec
