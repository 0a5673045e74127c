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

GuestThread& GuestThreads::park(GuestThread::State state, bool timed) {
  GuestThread& t = current();
  t.state = state;
  t.timed = timed;
  t.wait_order = next_wait_order_++;
  t.wake_result.reset();
  t.requeue_pi_target = 0;
  t.wait_end.reset();
  return t;
}

void GuestThreads::wait(uint64_t addr, uint32_t bitset, bool timed) {
  GuestThread& t = park(GuestThread::State::FutexWait, timed);
  t.futex_addr = addr;
  t.futex_bitset = bitset;
}

void GuestThreads::wait_io(IoWatch watch) {
  park(GuestThread::State::IoWait, false).io_watch = {std::move(watch)};
}

void GuestThreads::wait_poll(std::string_view call, std::vector<IoWatch> watches, std::optional<uint64_t> timeout_ns,
                             uint64_t steps) {
  GuestThread& t = park(GuestThread::State::PollWait, timeout_ns.has_value());
  t.io_watch = std::move(watches);
  t.wait_call = call;
  if (!t.waiting_since) t.waiting_since = steps;
  t.poll_timeout = timeout_ns.value_or(~uint64_t(0));
  if (timeout_ns) t.wait_end = *t.waiting_since + std::min(*timeout_ns, ~*t.waiting_since);
}

std::vector<IoWatch> GuestThreads::host_watches() const {
  std::vector<IoWatch> out;
  for (const GuestThread& t : threads_) {
    if (t.state != GuestThread::State::IoWait && t.state != GuestThread::State::PollWait) continue;
    for (const IoWatch& w : t.io_watch)
      if (!w.eventfd && w.host_fd >= 0) out.push_back(w);
  }
  return out;
}

void GuestThreads::keep_only_current(uint64_t tid) {
  for (size_t i = 0; i < threads_.size(); ++i)
    if (i != current_) threads_[i].state = GuestThread::State::Exited;
  threads_[current_].tid = tid;
  // by_tid() finds threads by tid - first_tid_.
  first_tid_ = tid >= current_ ? tid - current_ : first_tid_;
}

bool GuestThreads::any_io_waiter() const {
  for (const GuestThread& t : threads_)
    if (t.state == GuestThread::State::IoWait || t.state == GuestThread::State::PollWait) return true;
  return false;
}

bool GuestThreads::any_outside_waiter() const {
  for (const GuestThread& t : threads_) {
    if (t.state != GuestThread::State::IoWait && t.state != GuestThread::State::PollWait) continue;
    for (const IoWatch& w : t.io_watch)
      if (w.outside) return true;
  }
  return false;
}

bool GuestThreads::any_signal_waiter() const {
  for (const GuestThread& t : threads_)
    if (t.state == GuestThread::State::FutexWait && t.futex_addr == 0 && !t.timed) return true;
  return false;
}

void GuestThreads::recheck_epoll_waiters() {
  for (GuestThread& t : threads_)
    if (t.state == GuestThread::State::PollWait && t.wait_call.rfind("epoll", 0) == 0)
      t.state = GuestThread::State::Runnable;
}

void GuestThreads::wait_pi(uint64_t addr, uint64_t owner, bool timed) {
  GuestThread& t = park(GuestThread::State::PiWait, timed);
  t.futex_addr = addr;
  t.pi_owner = owner;
}

namespace {

// Waiters on addr (futex waits, or PI lock waits) in the order they started waiting.
std::vector<GuestThread*> waiters(std::vector<GuestThread>& threads, uint64_t addr,
                                  GuestThread::State kind = GuestThread::State::FutexWait) {
  std::vector<GuestThread*> out;
  for (GuestThread& t : threads)
    if (t.state == kind && t.futex_addr == addr) out.push_back(&t);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->wait_order < b->wait_order; });
  return out;
}

void make_runnable(GuestThread& t, int64_t result) {
  t.state = GuestThread::State::Runnable;
  t.wake_result = result;
  t.requeue_pi_target = 0;
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

GuestThread* GuestThreads::first_pi_waiter(uint64_t addr) {
  auto w = waiters(threads_, addr, GuestThread::State::PiWait);
  return w.empty() ? nullptr : w.front();
}

void GuestThreads::hand_pi(uint64_t addr, GuestThread& new_owner) {
  make_runnable(new_owner, 0);
  for (GuestThread* t : waiters(threads_, addr, GuestThread::State::PiWait)) t->pi_owner = new_owner.tid;
}

std::vector<GuestThread*> GuestThreads::futex_waiters(uint64_t addr) { return waiters(threads_, addr); }

bool GuestThreads::any_shared_futex_waiter() const {
  for (const GuestThread& t : threads_)
    if (t.state == GuestThread::State::FutexWait && t.shared_word) return true;
  return false;
}

bool GuestThreads::wake_shared_futex_waiters(const std::function<bool(const GuestThread&)>& moved) {
  bool woke = false;
  for (GuestThread& t : threads_)
    if (t.state == GuestThread::State::FutexWait && t.shared_word && moved(t)) {
      make_runnable(t, 0);
      woke = true;
    }
  return woke;
}

void GuestThreads::move_to_pi(GuestThread& t, uint64_t addr2, uint64_t owner) {
  // Keeps its place in the FIFO order, as the kernel's requeue keeps the
  // waiter's priority.
  t.state = GuestThread::State::PiWait;
  t.futex_addr = addr2;
  t.pi_owner = owner;
  t.requeue_pi_target = 0;
}

void GuestThreads::give_pi(GuestThread& t) { make_runnable(t, 0); }

std::vector<uint64_t> GuestThreads::pi_locks_held_by(uint64_t tid) const {
  std::vector<uint64_t> out;
  for (const GuestThread& t : threads_)
    if (t.state == GuestThread::State::PiWait && t.pi_owner == tid &&
        std::find(out.begin(), out.end(), t.futex_addr) == out.end())
      out.push_back(t.futex_addr);
  return out;
}

bool GuestThreads::other_runnable() const {
  for (size_t i = 0; i < threads_.size(); ++i)
    if (i != current_ && threads_[i].state == GuestThread::State::Runnable) return true;
  return false;
}

std::optional<uint64_t> GuestThreads::first_timeout() const {
  std::optional<uint64_t> first;
  for (const GuestThread& t : threads_) {
    if (!t.timed || t.state == GuestThread::State::Runnable || t.state == GuestThread::State::Exited) continue;
    const uint64_t end = t.wait_end.value_or(0);
    if (!first || end < *first) first = end;
  }
  return first;
}

std::optional<uint32_t> GuestThreads::pick_runnable() const {
  const size_t n = threads_.size();
  for (size_t k = 1; k <= n; ++k) {
    const size_t i = (current_ + k) % n;
    if (threads_[i].state == GuestThread::State::Runnable) return uint32_t(i + 1);
  }
  return std::nullopt;
}

std::optional<uint32_t> GuestThreads::pick_next() {
  if (const auto runnable = pick_runnable()) return runnable;
  GuestThread* oldest = nullptr;
  for (GuestThread& t : threads_) {
    const bool waits = t.state == GuestThread::State::FutexWait || t.state == GuestThread::State::PiWait ||
                       t.state == GuestThread::State::PollWait;
    if (waits && t.timed && (!oldest || t.wait_order < oldest->wait_order)) oldest = &t;
  }
  if (!oldest) return std::nullopt;
  make_runnable(*oldest, -ETIMEDOUT);
  return oldest->number;
}

namespace {

// "poll on fd 3 (a pipe, to read), fd 6 (a pipe, to write)"; a set with
// no pipe in it waits for its timeout only.
std::string describe_poll(const GuestThread& t) {
  std::string out(t.wait_call);
  if (t.io_watch.empty()) return out + " on no descriptor a thread could make ready";
  for (size_t i = 0; i < t.io_watch.size(); ++i) {
    const IoWatch& w = t.io_watch[i];
    const bool rd = w.events & (POLLIN | POLLPRI), wr = w.events & POLLOUT;
    out += (i ? ", fd " : " on fd ") + std::to_string(w.guest_fd) + (w.eventfd ? " (an eventfd, to " : " (a pipe, to ") +
           (rd && wr ? "read or write" : wr ? "write" : "read") + ")";
  }
  return out;
}

}  // namespace

std::string GuestThreads::describe_blocked() const {
  std::string out;
  for (const GuestThread& t : threads_) {
    char buf[128];
    std::string what;
    if (t.state == GuestThread::State::FutexWait && t.requeue_pi_target) {
      std::snprintf(buf, sizeof buf, "futex wait_requeue_pi on 0x%llx (to 0x%llx)", (unsigned long long)t.futex_addr,
                    (unsigned long long)t.requeue_pi_target);
      what = buf;
    } else if (t.state == GuestThread::State::FutexWait) {
      std::snprintf(buf, sizeof buf, "futex wait on 0x%llx", (unsigned long long)t.futex_addr);
      what = buf;
    } else if (t.state == GuestThread::State::PiWait) {
      std::snprintf(buf, sizeof buf, "futex lock_pi on 0x%llx (held by tid %llu)", (unsigned long long)t.futex_addr,
                    (unsigned long long)t.pi_owner);
      what = buf;
    } else if (t.state == GuestThread::State::IoWait && !t.io_watch.empty()) {
      what = std::string((t.io_watch[0].events & POLLOUT) ? "write to" : "read from") + " fd " +
             std::to_string(t.io_watch[0].guest_fd) + (t.io_watch[0].eventfd ? " (an eventfd)" : " (a pipe)");
    } else if (t.state == GuestThread::State::PollWait) {
      what = describe_poll(t);
    } else {
      continue;
    }
    std::snprintf(buf, sizeof buf, "thread %u (tid %llu): ", t.number, (unsigned long long)t.tid);
    out += (out.empty() ? "" : "; ") + std::string(buf) + what;
  }
  return out;
}

}  // namespace ttd::rec
