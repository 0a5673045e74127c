// The guest's threads as the emulated kernel sees them: ids, who is
// runnable, who waits on which futex, PI lock or set of pipes (in FIFO
// order), and the clear-child-tid and robust-list addresses each one gave. Scheduling decisions
// (round robin in creation order) are made here so that they depend only
// on the guest's own actions: recording the same program twice switches
// threads at the same steps. CPU state lives elsewhere (thread_contexts.h).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/recorder/guest_eventfd.h"

namespace ttd::rec {

// A pipe end or eventfd a waiting thread watches: guest fd, the
// recorder's descriptor for a pipe (or the eventfd), and the poll events
// that make the thread runnable again.
struct IoWatch {
  int guest_fd = -1, host_fd = -1;
  short events = 0;
  std::shared_ptr<const GuestEventfd> eventfd;
  // Another process may make it ready: a socket (GuestFd::socket_outside),
  // the host's stdin, a terminal, a FIFO, an inherited pipe.
  bool outside = false;
};

struct GuestThread {
  // IoWait: a read or write on one pipe; PollWait: poll/select on a set
  // of pipes; PiWait: FUTEX_LOCK_PI on a lock another thread holds;
  // Sleep: nanosleep / clock_nanosleep until the virtual clock reaches
  // sleep_until (guest_sleeps.cpp).
  enum class State : uint8_t { Runnable, FutexWait, IoWait, PollWait, PiWait, Sleep, Exited };
  uint32_t number = 1;       // the trace's thread number: 1 = the main thread
  uint64_t tid = 0;          // what gettid returns
  State state = State::Runnable;
  uint64_t futex_addr = 0;   // FutexWait, PiWait: the word waited on
  uint32_t futex_bitset = 0; // ... and the FUTEX_WAIT_BITSET mask (all ones for FUTEX_WAIT)
  bool timed = false;        // FutexWait, PiWait, PollWait: with a timeout
  // ... which ends when the virtual clock reaches this (ns), a due time
  // like a sleep's end (guest_sleeps.cpp); nullopt: not kept, the wait
  // times out when nothing else can run (pick_next).
  std::optional<uint64_t> wait_end;
  uint64_t wait_order = 0;   // FIFO position among waiters
  // IoWait: a read from an empty pipe or a write to a full one (one
  // entry); PollWait: the pipes of the poll set (none if it has none).
  std::vector<IoWatch> io_watch;
  std::string_view wait_call;  // PollWait: "poll", "select", "ppoll", "pselect6", "epoll_wait", ...
  std::optional<uint64_t> waiting_since;  // PollWait: steps when the call first waited
  uint64_t poll_timeout = ~uint64_t(0);   // PollWait: its timeout in steps (~0: none, or not kept); in ns as the clock (1 ns a step), so also the real wait on sockets (LinuxKernel::poll_outside_io)
  uint64_t pi_owner = 0;       // PiWait: tid of the thread holding the lock
  // FutexWait in FUTEX_WAIT_REQUEUE_PI: the PI lock FUTEX_CMP_REQUEUE_PI
  // moves it to (0 for other waits).
  uint64_t requeue_pi_target = 0;
  // Woken (or timed out) and not yet back from its futex call: the call,
  // run again when the thread is scheduled, returns this.
  std::optional<int64_t> wake_result;
  // Sleep: the virtual clock's ns at which the sleep ends; kept after a
  // signal ends it early, for the time left (`rem`), until the call returns.
  std::optional<uint64_t> sleep_until;
  // FutexWait on a word of memory shared with other processes
  // (host_shared_memory.h): the value it had, and the count of shared
  // wakes then; it wakes when either moves (another process's store or
  // FUTEX_WAKE), as the host cannot tell us whom another process woke.
  std::optional<uint32_t> shared_word;
  uint64_t shared_wakes = 0;
  uint64_t clear_child_tid = 0;  // set_tid_address / CLONE_CHILD_CLEARTID
  uint64_t robust_head = 0;      // set_robust_list (0: none)
};

class GuestThreads {
 public:
  // Thread 1 (tid `first_tid`) exists from the start and is current.
  explicit GuestThreads(uint64_t first_tid);

  GuestThread& current() { return threads_[current_]; }
  const GuestThread& current() const { return threads_[current_]; }
  // A new runnable thread with the next number and tid.
  GuestThread& add();
  GuestThread* by_tid(uint64_t tid);
  GuestThread* by_number(uint32_t number);
  size_t live() const;  // threads not exited
  size_t count() const { return threads_.size(); }  // every thread ever made

  // Futexes. wait() parks the current thread; wake() makes up to n
  // waiters on addr (whose bitset meets `bitset`) runnable with result 0
  // and returns how many; requeue() wakes up to n_wake and moves up to
  // n_move of the rest to addr2, returning the total.
  void wait(uint64_t addr, uint32_t bitset, bool timed);
  uint32_t wake(uint64_t addr, uint32_t n, uint32_t bitset = ~0u);
  uint32_t requeue(uint64_t addr, uint32_t n_wake, uint32_t n_move, uint64_t addr2);
  void exit_current() { current().state = GuestThread::State::Exited; }
  // Parks the current thread until `ready` says its descriptor can be
  // read or written (make_io_ready()).
  void wait_io(IoWatch watch);
  // Parks the current thread in poll/select/epoll_wait (`call`) until
  // one of `watches` is ready or its timeout (nullopt: none) ends; `steps`
  // is when it started waiting (the first time, if it waits again), so the
  // wait ends at that start plus the timeout (wait_end, poll_timeout). The
  // caller then updates the due time (LinuxKernel::update_timer_due).
  void wait_poll(std::string_view call, std::vector<IoWatch> watches, std::optional<uint64_t> timeout_ns,
                 uint64_t steps);
  bool any_io_waiter() const;
  // A parked thread watches a descriptor another process may make ready.
  bool any_outside_waiter() const;
  // Sleeps and timed waits (guest_sleeps.cpp). sleep() parks the current
  // thread until the virtual clock reads `until`; first_wake_time() is the
  // earliest sleep end or timed wait's wait_end (nullopt: none), a due
  // time like a timer's; wake_due() makes the sleepers whose end is <=
  // `now` runnable with result 0, the timed waiters with -ETIMEDOUT, and
  // says if there was one.
  void sleep(uint64_t until);
  std::optional<uint64_t> first_wake_time() const;
  bool wake_due(uint64_t now);
  // A thread in pause, sigsuspend or sigwait without a timeout: a wait
  // that only a signal ends.
  bool any_signal_waiter() const;
  // The host descriptors IoWait and PollWait threads wait for (pipes; not
  // eventfds), with their events: what the recorder polls on the host
  // when another process may make them ready (a fork's child).
  std::vector<IoWatch> host_watches() const;
  // After a fork, in the child: only the current thread is left (Linux
  // copies the calling thread), with tid `tid`.
  void keep_only_current(uint64_t tid);
  // Makes every thread waiting in epoll_wait / epoll_pwait / epoll_pwait2
  // runnable, to run its call again: an epoll_ctl or a close changed what
  // the sets watch, so their watches may be stale.
  void recheck_epoll_waiters();
  // Makes every IoWait or PollWait thread one of whose descriptors
  // `ready(watch)` says is ready runnable again; it runs its read, write,
  // poll, select or epoll_wait again then.
  template <class Ready>
  void make_io_ready(Ready&& ready) {
    for (GuestThread& t : threads_) {
      if (t.state != GuestThread::State::IoWait && t.state != GuestThread::State::PollWait) continue;
      for (const IoWatch& w : t.io_watch)
        if (ready(w)) {
          t.state = GuestThread::State::Runnable;
          break;
        }
    }
  }

  // PI futexes. wait_pi() parks the current thread on the lock at addr
  // held by `owner`; first_pi_waiter() is the one that waited longest;
  // hand_pi() makes it runnable with result 0 as the lock's new owner
  // (the other waiters now wait on it). pi_locks_held_by() lists the
  // locks `tid` holds that others wait for.
  void wait_pi(uint64_t addr, uint64_t owner, bool timed);
  GuestThread* first_pi_waiter(uint64_t addr);
  void hand_pi(uint64_t addr, GuestThread& new_owner);
  // FUTEX_CMP_REQUEUE_PI: the threads waiting on addr (FIFO); move_to_pi()
  // makes one wait for the PI lock at addr2 held by `owner`, give_pi()
  // makes one runnable (result 0) as the lock's owner.
  std::vector<GuestThread*> futex_waiters(uint64_t addr);
  // Waiters on shared words (GuestThread::shared_word): any, and those
  // `moved` says to wake, made runnable with result 0 (true if one was).
  bool any_shared_futex_waiter() const;
  bool wake_shared_futex_waiters(const std::function<bool(const GuestThread&)>& moved);
  void move_to_pi(GuestThread& t, uint64_t addr2, uint64_t owner);
  void give_pi(GuestThread& t);
  std::vector<uint64_t> pi_locks_held_by(uint64_t tid) const;

  // The next runnable thread after the current one in round-robin order
  // (the current one itself last, if it can run); when none can run, the
  // timed waiter (futex, PI lock, poll/select) that waited longest times
  // out (-ETIMEDOUT) and is chosen.
  // nullopt: every live thread waits without a timeout (deadlock).
  std::optional<uint32_t> pick_next();
  // The same without timing anyone out: nullopt when none can run.
  std::optional<uint32_t> pick_runnable() const;
  // Whether a thread other than the current one could run now.
  bool other_runnable() const;
  // The virtual clock's ns at which the first timed wait would end: its
  // wait_end, 0 for a wait whose end is not kept (it ends first, as
  // pick_next() has it); nullopt when no thread waits with a timeout. A
  // timer due before it fires first (RecordingSession::switch_threads).
  std::optional<uint64_t> first_timeout() const;
  void make_current(uint32_t number) { current_ = number - 1; }
  // "thread 1 (tid 4242): futex wait on 0x...; thread 2 (tid 4243): read
  // from fd 3 (a pipe); thread 3 (tid 4244): poll on fd 5 (a pipe, to
  // read)" for the deadlock report.
  std::string describe_blocked() const;

 private:
  // The current thread starts waiting (state, timeout, FIFO order, no wake
  // result yet); the caller fills in what it waits for.
  GuestThread& park(GuestThread::State state, bool timed);

  std::vector<GuestThread> threads_;  // index = number - 1; tids are never reused
  size_t current_ = 0;
  uint64_t first_tid_;
  uint64_t next_wait_order_ = 0;
};

}  // namespace ttd::rec
