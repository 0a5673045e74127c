// A sleeping thread gives way to the others (issue 16; docs/recording.md,
// "Clocks"): programs/sleep_threads.c prints what it prints natively. The
// worker counted only after main's sleep before (the clock jumped over
// it: "worker ran during the sleep: 0"); an interval timer's signal still
// ends a sleep with EINTR and the time left, an ignored one does not, and
// TIMER_ABSTIME and two sleeping threads end at their times. The parking
// itself (GuestThreads::sleep) is tested alone.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/guest_threads.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

void records_like_native(const char* mode, std::initializer_list<const char*> variants) {
  const std::string glibc_prog = test::program_path("x86_64-dyn", "sleep_threads");
  if (glibc_prog.empty()) return;
  const test::NativeRun glibc_native = test::run_native({glibc_prog, mode});
  REQUIRE(glibc_native.status == 0);
  int ran = 0;
  for (const char* variant : variants) {
    const std::string prog = test::program_path(variant, "sleep_threads");
    if (prog.empty()) continue;
    INFO(variant << " " << mode);
    // AArch64 glibc prints what x86-64 glibc prints.
    const std::string native = variant[0] == 'a' ? glibc_native.out : test::run_native({prog, mode}).out;
    const std::string out = test::temp_trace(std::string("sleep-threads-") + variant + "-" + mode);
    RecordOptions o = test::capture_options({prog, mode}, out);
    o.env = {"LC_ALL=C"};
    test::check_records_like_native(o, native);
    fs::remove(out);
    ++ran;
  }
  CHECK(ran > 0);
}

}  // namespace

TEST_CASE("sleeps: a worker counts while main sleeps 50 ms, as natively") {
  const std::string prog = test::program_path("x86_64-dyn", "sleep_threads");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "worker"}).out == "sleep: 0\nworker ran during the sleep: 1\nslept at least 50 ms: 1\n");
  records_like_native("worker", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("sleeps: a 1 ms sleep ends while the worker still counts") {
  records_like_native("short", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("sleeps: with a thread parked, an alarm ends a sleep with EINTR and rem, an ignored one does not") {
  const std::string prog = test::program_path("x86_64-dyn", "sleep_threads");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "alarm"}).out.find("sleep: -1 Interrupted system call, alarms 1, rem in (600, 801] ms: 1\n") == 0);
  records_like_native("alarm", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("sleeps: two sleeping threads wake in the order of their ends") {
  records_like_native("both", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("GuestThreads: a sleep parks the thread until its end, the earliest end first") {
  GuestThreads threads(100);
  threads.add();
  threads.add();
  CHECK_FALSE(threads.first_sleep_end());
  threads.sleep(5000);  // thread 1
  threads.make_current(2);
  threads.sleep(3000);
  CHECK(threads.first_sleep_end() == 3000u);
  CHECK(threads.pick_next() == 3u);  // only thread 3 runs
  CHECK_FALSE(threads.wake_sleepers(2999));
  CHECK(threads.wake_sleepers(3000));
  CHECK(threads.by_number(2)->state == GuestThread::State::Runnable);
  CHECK(threads.by_number(2)->wake_result == 0);
  CHECK(threads.by_number(1)->state == GuestThread::State::Sleep);
  CHECK(threads.first_sleep_end() == 5000u);
  threads.make_current(3);
  threads.exit_current();
  threads.make_current(2);
  threads.exit_current();
  // Only a sleeper is left: not a deadlock to pick_next (no timed wait
  // to end), its end comes from the clock (LinuxKernel::fire_due).
  CHECK_FALSE(threads.pick_next());
  CHECK(threads.wake_sleepers(9000));
  CHECK(threads.pick_next() == 1u);
}
