#include "tools/recorder/guest_threads.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace ttd::rec {

GuestThreads::GuestThreads(uint64_t first_tid) : first_tid_(first_tid) {
  GuestThread t;
  t.number = 1;
  t.tid = first_tid;
  threads_.push_back(t);
}

GuestThread& GuestThreads::add() {
  GuestThread t;
  t.number = uint32_t(threads_.size() + 1);
  t.tid = first_tid_ + threads_.size();
  threads_.push_back(t);
  return threads_.back();
}

GuestThread* GuestThreads::by_tid(uint64_t tid) {
  if (tid < first_tid_ || tid - first_tid_ >= threads_.size()) return nullptr;
  GuestThread& t = threads_[tid - first_tid_];
  return t.state == GuestThread::State::Exited ? nullptr : &t;
}

GuestThread* GuestThreads::by_number(uint32_t number) {
  return number >= 1 && number <= threads_.size() ? &threads_[number - 1] : nullptr;
}

size_t GuestThreads::live() const {
  size_t n = 0;
  for (const GuestThread& t : threads_) n += t.state != GuestThread::State::Exited;
  return n;
}

void GuestThreads::wait(uint64_t addr, uint32_t bitset, bool timed) {
  GuestThread& t = current();
  t.state = GuestThread::State::FutexWait;
  t.futex_addr = addr;
  t.futex_bitset = bitset;
  t.timed = timed;
  t.wait_order = next_wait_order_++;
  t.wake_result.reset();
}

void GuestThreads::wait_io(int guest_fd, int host_fd, short events) {
  GuestThread& t = current();
  t.state = GuestThread::State::IoWait;
  t.io_fd = guest_fd;
  t.io_host = host_fd;
  t.io_events = events;
  t.wait_order = next_wait_order_++;
  t.wake_result.reset();
}

bool GuestThreads::any_io_waiter() const {
  for (const GuestThread& t : threads_)
    if (t.state == GuestThread::State::IoWait) return true;
  return false;
}

namespace {

// Waiters on addr in the order they started waiting.
std::vector<GuestThread*> waiters(std::vector<GuestThread>& threads, uint64_t addr) {
  std::vector<GuestThread*> out;
  for (GuestThread& t : threads)
    if (t.state == GuestThread::State::FutexWait && t.futex_addr == addr) out.push_back(&t);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->wait_order < b->wait_order; });
  return out;
}

void make_runnable(GuestThread& t, int64_t result) {
  t.state = GuestThread::State::Runnable;
  t.wake_result = result;
}

}  // namespace

uint32_t GuestThreads::wake(uint64_t addr, uint32_t n, uint32_t bitset) {
  uint32_t woken = 0;
  for (GuestThread* t : waiters(threads_, addr)) {
    if (woken >= n) break;
    if (!(t->futex_bitset & bitset)) continue;
    make_runnable(*t, 0);
    ++woken;
  }
  return woken;
}

uint32_t GuestThreads::requeue(uint64_t addr, uint32_t n_wake, uint32_t n_move, uint64_t addr2) {
  uint32_t woken = 0, moved = 0;
  for (GuestThread* t : waiters(threads_, addr)) {
    if (woken < n_wake) {
      make_runnable(*t, 0);
      ++woken;
    } else if (moved < n_move) {
      t->futex_addr = addr2;
      ++moved;
    }
  }
  return woken + moved;
}

bool GuestThreads::other_runnable() const {
  for (size_t i = 0; i < threads_.size(); ++i)
    if (i != current_ && threads_[i].state == GuestThread::State::Runnable) return true;
  return false;
}

std::optional<uint32_t> GuestThreads::pick_next() {
  const size_t n = threads_.size();
  for (size_t k = 1; k <= n; ++k) {
    const size_t i = (current_ + k) % n;
    if (threads_[i].state == GuestThread::State::Runnable) return uint32_t(i + 1);
  }
  GuestThread* oldest = nullptr;
  for (GuestThread& t : threads_)
    if (t.state == GuestThread::State::FutexWait && t.timed && (!oldest || t.wait_order < oldest->wait_order))
      oldest = &t;
  if (!oldest) return std::nullopt;
  make_runnable(*oldest, -ETIMEDOUT);
  return oldest->number;
}

std::string GuestThreads::describe_blocked() const {
  std::string out;
  for (const GuestThread& t : threads_) {
    char buf[128];
    if (t.state == GuestThread::State::FutexWait)
      std::snprintf(buf, sizeof buf, "thread %u (tid %llu): futex wait on 0x%llx", t.number,
                    (unsigned long long)t.tid, (unsigned long long)t.futex_addr);
    else if (t.state == GuestThread::State::IoWait)
      std::snprintf(buf, sizeof buf, "thread %u (tid %llu): %s fd %d (a pipe)", t.number, (unsigned long long)t.tid,
                    (t.io_events & POLLOUT) ? "write to" : "read from", t.io_fd);
    else
      continue;
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out;
}

}  // namespace ttd::rec
