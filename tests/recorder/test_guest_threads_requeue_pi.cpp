// GuestThreads' side of FUTEX_WAIT_REQUEUE_PI / FUTEX_CMP_REQUEUE_PI on its
// own: a requeue-PI waiter is a futex waiter that names its PI lock, moves
// to the lock's waiters keeping its FIFO place, and the deadlock report
// says which wait it is in.
#include <doctest/doctest.h>

#include <cerrno>

#include "tools/recorder/guest_threads.h"

using namespace ttd::rec;

TEST_CASE("GuestThreads: requeue-PI waiters move to the PI lock in FIFO order and are named in deadlock reports") {
  GuestThreads th(100);
  th.add();
  th.add();
  // Threads 2 then 3 wait on the condition word 0x1000 for the lock 0x2000.
  for (uint32_t n : {2u, 3u}) {
    th.make_current(n);
    th.wait(0x1000, ~0u, false);
    th.current().requeue_pi_target = 0x2000;
  }
  th.make_current(1);
  auto w = th.futex_waiters(0x1000);
  REQUIRE(w.size() == 2);
  CHECK(w[0]->number == 2);
  CHECK(w[1]->number == 3);
  CHECK(th.describe_blocked() ==
        "thread 2 (tid 101): futex wait_requeue_pi on 0x1000 (to 0x2000); "
        "thread 3 (tid 102): futex wait_requeue_pi on 0x1000 (to 0x2000)");

  // The lock was free: thread 2 gets it; thread 3 waits for it, held by 2.
  th.give_pi(*w[0]);
  th.move_to_pi(*w[1], 0x2000, 101);
  const GuestThread& t2 = *th.by_number(2);
  CHECK(t2.state == GuestThread::State::Runnable);
  REQUIRE(t2.wake_result.has_value());
  CHECK(*t2.wake_result == 0);
  CHECK(t2.requeue_pi_target == 0);
  CHECK(th.futex_waiters(0x1000).empty());
  CHECK(th.pi_locks_held_by(101) == std::vector<uint64_t>{0x2000});
  CHECK(th.first_pi_waiter(0x2000) == th.by_number(3));
  CHECK(th.by_number(3)->requeue_pi_target == 0);
  CHECK(th.describe_blocked() == "thread 3 (tid 102): futex lock_pi on 0x2000 (held by tid 101)");
}

TEST_CASE("GuestThreads: a timed requeue-PI waiter times out off the condition word, or off the PI lock once moved") {
  GuestThreads th(100);
  th.add();
  th.add();
  // Thread 2 waits (timed) on 0x1000 for the lock 0x2000; thread 1 waits
  // untimed elsewhere, so nothing can run: thread 2 times out.
  th.make_current(2);
  th.wait(0x1000, ~0u, true);
  th.current().requeue_pi_target = 0x2000;
  th.make_current(3);
  th.wait(0x3000, ~0u, false);
  th.make_current(1);
  th.wait(0x4000, ~0u, false);
  REQUIRE(th.pick_next() == 2u);
  const GuestThread& t2 = *th.by_number(2);
  CHECK(t2.state == GuestThread::State::Runnable);
  REQUIRE(t2.wake_result.has_value());
  CHECK(*t2.wake_result == -ETIMEDOUT);
  CHECK(t2.requeue_pi_target == 0);
  CHECK(th.futex_waiters(0x1000).empty());

  // Again, moved to the lock 0x2000 held by thread 3 (tid 102) first.
  th.make_current(2);
  th.wait(0x1000, ~0u, true);
  th.current().requeue_pi_target = 0x2000;
  auto w = th.futex_waiters(0x1000);
  REQUIRE(w.size() == 1);
  th.move_to_pi(*w[0], 0x2000, 102);
  CHECK(th.first_pi_waiter(0x2000) == th.by_number(2));
  REQUIRE(th.pick_next() == 2u);
  CHECK(*th.by_number(2)->wake_result == -ETIMEDOUT);
  CHECK(th.first_pi_waiter(0x2000) == nullptr);
  CHECK(th.pi_locks_held_by(102).empty());
}
