// An eventfd the guest made (eventfd, eventfd2), kept by the recorder: a
// 64-bit counter with Linux's rules (fs/eventfd.c), so no host eventfd is
// needed and every value the guest reads comes from its own writes.
// Descriptors dup'd from one eventfd share this object, as they share the
// open file on Linux (the counter and O_NONBLOCK).
//
// Contract: read()/write() never wait; they return -EAGAIN where Linux
// would block or refuse, and the caller parks the thread when the
// descriptor is blocking (LinuxKernel::blocks) until readable()/writable()
// says so.
#pragma once
#include <cerrno>
#include <cstdint>

namespace ttd::rec {

class GuestEventfd {
 public:
  // The counter's largest value; a write that would pass it waits.
  static constexpr uint64_t kMax = 0xfffffffffffffffeull;

  GuestEventfd(uint64_t initial, bool semaphore, bool nonblocking)
      : count_(initial), semaphore_(semaphore), nonblocking_(nonblocking) {}

  // What a read returns in `value`: the counter (then 0), or 1 (then the
  // counter less 1) in semaphore mode. -EAGAIN when the counter is 0.
  int64_t read(uint64_t& value) {
    if (count_ == 0) return -EAGAIN;
    value = semaphore_ ? 1 : count_;
    count_ -= value;
    ++changes_;
    return 8;
  }
  // Adds `value`: -EINVAL for 0xffffffffffffffff, -EAGAIN if the counter
  // would pass kMax.
  int64_t write(uint64_t value) {
    if (value == ~0ull) return -EINVAL;
    if (kMax - count_ < value) return -EAGAIN;
    count_ += value;
    ++changes_;
    return 8;
  }
  bool readable() const { return count_ > 0; }
  bool writable() const { return count_ < kMax; }
  uint64_t count() const { return count_; }
  bool semaphore() const { return semaphore_; }
  bool nonblocking() const { return nonblocking_; }
  void set_nonblocking(bool on) { nonblocking_ = on; }
  // Successful reads and writes so far: an edge-triggered epoll reports
  // the descriptor again after one, as Linux's wake-ups do.
  uint64_t changes() const { return changes_; }

 private:
  uint64_t count_;
  bool semaphore_, nonblocking_;
  uint64_t changes_ = 0;
};

}  // namespace ttd::rec
