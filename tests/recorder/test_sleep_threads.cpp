// A sleeping thread gives way to the others (issue 16; docs/recording.md,
// "Clocks"): programs/sleep_threads.c prints what it prints natively. The
// worker counted only after main's sleep before (the clock jumped over
// it: "worker ran during the sleep: 0"); an interval timer's signal still
// ends a sleep with EINTR and the time left, an ignored one does not, and
// TIMER_ABSTIME and two sleeping threads end at their times. The parking
// itself (GuestThreads::sleep) is tested alone.
#include <doctest/doctest.h>


#include "tests/recorder/recording_support.h"
#include "tools/recorder/guest_threads.h"

using namespace ttd;
using namespace ttd::rec;

TEST_CASE("sleeps: a worker counts while main sleeps 50 ms, as natively") {
  const std::string prog = test::program_path("x86_64-dyn", "sleep_threads");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "worker"}).out == "sleep: 0\nworker ran during the sleep: 1\nslept at least 50 ms: 1\n");
  test::check_mode_like_native("sleep_threads", "worker", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("sleeps: a 1 ms sleep ends while the worker still counts") {
  test::check_mode_like_native("sleep_threads", "short", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("sleeps: with a thread parked, an alarm ends a sleep with EINTR and rem, an ignored one does not") {
  const std::string prog = test::program_path("x86_64-dyn", "sleep_threads");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "alarm"}).out.find("sleep: -1 Interrupted system call, alarms 1, rem in (600, 801] ms: 1\n") == 0);
  test::check_mode_like_native("sleep_threads", "alarm", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("sleeps: two sleeping threads wake in the order of their ends") {
  test::check_mode_like_native("sleep_threads", "both", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("GuestThreads: a sleep parks the thread until its end, the earliest end first") {
  GuestThreads threads(100);
  threads.add();
  threads.add();
  CHECK_FALSE(threads.first_wake_time());
  threads.sleep(5000);  // thread 1
  threads.make_current(2);
  threads.sleep(3000);
  CHECK(threads.first_wake_time() == 3000u);
  CHECK(threads.pick_next() == 3u);  // only thread 3 runs
  CHECK_FALSE(threads.wake_due(2999));
  CHECK(threads.wake_due(3000));
  CHECK(threads.by_number(2)->state == GuestThread::State::Runnable);
  CHECK(threads.by_number(2)->wake_result == 0);
  CHECK(threads.by_number(1)->state == GuestThread::State::Sleep);
  CHECK(threads.first_wake_time() == 5000u);
  threads.make_current(3);
  threads.exit_current();
  threads.make_current(2);
  threads.exit_current();
  // Only a sleeper is left: not a deadlock to pick_next (no timed wait
  // to end), its end comes from the clock (LinuxKernel::fire_due).
  CHECK_FALSE(threads.pick_next());
  CHECK(threads.wake_due(9000));
  CHECK(threads.pick_next() == 1u);
}
