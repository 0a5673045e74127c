// Timed waits take their time (issue 16; docs/recording.md, "Clocks"):
// programs/timed_waits.c prints what it prints natively. Before
// 2026-11-29 a timed futex wait, PI lock, poll or sigtimedwait ended at
// once without the clock moving ("at least 200 ms: 0"), and only when no
// other thread could run; in a fork's child a timed futex wait answered
// EAGAIN at once. The due-time bookkeeping (GuestThreads::wake_due) is
// tested alone.
#include <doctest/doctest.h>

#include <cerrno>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/guest_threads.h"

using namespace ttd;
using namespace ttd::rec;

TEST_CASE("timed waits: futex waits end at their relative and absolute ends, as natively") {
  const std::string prog = test::program_path("x86_64-dyn", "timed_waits");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "futex"}).out ==
        "futex wait: ETIMEDOUT, at least 200 ms: 1\n"
        "futex wait bitset (monotonic): ETIMEDOUT, at least 150 ms: 1\n"
        "futex wait bitset (realtime): ETIMEDOUT, at least 100 ms: 1\n"
        "past end: -1 ETIMEDOUT\nbad timeout: -1 EINVAL\n");
  test::check_mode_like_native("timed_waits", "futex", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("timed waits: poll and sigtimedwait time out after their timeout") {
  test::check_mode_like_native("timed_waits", "poll", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("timed waits: a condition variable times out while another thread runs") {
  test::check_mode_like_native("timed_waits", "cond", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("timed waits: a PI mutex's timedlock waits until its end") {
  test::check_mode_like_native("timed_waits", "pi", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("timed waits: a fork's unrecorded child waits in real time") {
  test::check_mode_like_native("timed_waits", "child", {"x86_64-dyn"});
}

TEST_CASE("timed waits: sleeps between polls of a running child take real time, as the child does") {
  test::check_mode_like_native("timed_waits", "poll-child", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("timed waits: a fork's unrecorded child's select and epoll_wait wait on the host for its parent's writes") {
  test::check_mode_like_native("timed_waits", "child-select", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("GuestThreads: a timed wait with an end is due like a sleep, without one it is not") {
  GuestThreads threads(100);
  threads.add();
  threads.add();
  threads.wait(0x1000, ~0u, true);  // thread 1, ends at 7000
  threads.current().wait_end = 7000;
  threads.make_current(2);
  threads.sleep(9000);
  threads.make_current(3);
  threads.wait(0x2000, ~0u, true);  // timed, its end not kept
  CHECK(threads.first_wake_time() == 7000u);
  CHECK(threads.first_timeout() == 0u);  // the wait without an end comes first
  CHECK_FALSE(threads.wake_due(6999));
  CHECK(threads.wake_due(7000));
  CHECK(threads.by_number(1)->state == GuestThread::State::Runnable);
  CHECK(threads.by_number(1)->wake_result == -ETIMEDOUT);
  CHECK(threads.by_number(3)->state == GuestThread::State::FutexWait);
  CHECK(threads.first_wake_time() == 9000u);
  // A futex wake ends the wait before its end: it is no longer due.
  threads.make_current(1);
  threads.wait(0x1000, ~0u, true);
  threads.current().wait_end = 8000;
  CHECK(threads.first_wake_time() == 8000u);
  CHECK(threads.wake(0x1000, 1) == 1u);
  CHECK(threads.first_wake_time() == 9000u);
  CHECK(threads.by_number(1)->wake_result == 0);
}
