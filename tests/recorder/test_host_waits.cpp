// Timers and clocks while the recorded program waits on the host (issue
// 16; docs/recording.md, "Clocks" and "Timers"): programs/host_waits.c
// prints what it prints natively (an alarm interrupts a wait4 for an
// unrecorded child and a read of a pipe that child writes late; SA_RESTART
// restarts the wait4; a host wait's wall time shows on the clocks; the
// clock ids; a periodic setitimer), and Debian's `timeout 1 sleep 5`
// exits 124 as natively. host_wait_clock.h's arithmetic is tested alone.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/host_wait_clock.h"
#include "tools/recorder/step_timer.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_host_waits {

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

const char* const kVariants[] = {"x86_64", "x86_64-glibc", "x86_64-dyn", "x86_64-nopie", "aarch64", "aarch64-dyn"};

}  // namespace

TEST_CASE("host waits: an alarm interrupts a wait4 for an unrecorded child, as natively") {
  const std::string prog = test::program_path("x86_64-dyn", "host_waits");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "wait4"}).out == "wait4: -1 EINTR, alarms 1\nchild killed by signal 9\n");
  test::check_mode_like_native("host_waits", "wait4", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("host waits: with SA_RESTART the wait4 goes on after the alarm's handler") {
  const std::string prog = test::program_path("x86_64-dyn", "host_waits");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "restart"}).out ==
        "wait4 restarted: returned the child 1, alarms 1\nchild killed by signal 15\n");
  test::check_mode_like_native("host_waits", "restart", {"x86_64", "x86_64-dyn"});
}

TEST_CASE("host waits: an alarm interrupts a read of a pipe an unrecorded child writes late") {
  const std::string prog = test::program_path("x86_64-dyn", "host_waits");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "pipe"}).out == "read: -1 EINTR, alarms 1\nchild killed by signal 9\n");
  test::check_mode_like_native("host_waits", "pipe", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("host waits: an alarm interrupts a read of a socket whose peer elsewhere never writes") {
  const std::string prog = test::program_path("x86_64-dyn", "host_waits");
  if (prog.empty()) return;
  // The peer: this test's listening socket; the kernel completes the
  // connections in its backlog, nobody accepts or writes.
  const int l = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(l >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  REQUIRE(::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::listen(l, 16) == 0);
  REQUIRE(::getsockname(l, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  const std::string port = std::to_string(ntohs(a.sin_port));
  CHECK(test::run_native({prog, "socket", port}).out == "read: -1 EINTR, alarms 1\n");
  test::check_mode_like_native("host_waits", "socket", {"x86_64", "x86_64-dyn", "aarch64"}, port);
  ::close(l);
}

TEST_CASE("host waits: an alarm interrupts a blocking read of an inherited pipe nobody writes") {
  const std::string prog = test::program_path("x86_64-dyn", "host_waits");
  if (prog.empty()) return;
  // The read end goes to the program (natively through the shell that
  // runs it, recorded as an inherited descriptor); the write end stays
  // open here, unwritten.
  int p[2];
  REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
  const int fd = ::fcntl(p[0], F_DUPFD, 100);
  REQUIRE(fd >= 100);
  const std::string n = std::to_string(fd);
  CHECK(test::run_native({prog, "fdread", n}).out == "read: -1 EINTR, alarms 1\n");
  test::check_mode_like_native("host_waits", "fdread", {"x86_64", "x86_64-dyn", "aarch64"}, n, {fd});
  ::close(fd);
  ::close(p[0]);
  ::close(p[1]);
}

TEST_CASE("host waits: a fork child's own timer ends its blocking pipe or socket call, as natively") {
  // Until 2026-11-29 the unrecorded child blocked in read(2) / write(2)
  // and its ITIMER_REAL never fired: the recording hung.
  const std::string prog = test::program_path("x86_64-dyn", "host_waits");
  if (prog.empty()) return;
  for (const char* mode : {"child-read", "child-write", "child-recv", "child-accept"}) {
    CAPTURE(mode);
    CHECK(test::run_native({prog, mode}).out == "child killed by signal 14\n");
    test::check_mode_like_native("host_waits", mode, {"x86_64", "x86_64-dyn", "aarch64"});
  }
}

TEST_CASE("host waits: a fork child's own timer ends its wait4 for a grandchild, as natively") {
  // Until 2026-11-29 the unrecorded child blocked in the host's wait4 and
  // its ITIMER_REAL fired only once the grandchild ended, 2 s later.
  const std::string prog = test::program_path("x86_64-dyn", "host_waits");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "child-wait"}).out == "child killed by signal 14\nthe child ended within 1 s: 1\n");
  test::check_mode_like_native("host_waits", "child-wait", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("host waits: an alarm interrupts a one-thread wait4 for stops, as natively") {
  // A pidfd does not tell stops, so such a wait is not parked; until
  // 2026-11-29 it blocked in the host's wait4 and the alarm came when the
  // child ended, 3 s later.
  const std::string prog = test::program_path("x86_64-dyn", "host_waits");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "wait-stops"}).out ==
        "waitpid: -1 EINTR, alarms 1, within 2 s: 1\nchild killed by signal 9\n");
  test::check_mode_like_native("host_waits", "wait-stops", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("host waits: the clocks move on by a host wait's wall time") {
  test::check_mode_like_native("host_waits", "timed", {"x86_64", "x86_64-dyn", "aarch64"});
}

TEST_CASE("clocks: clock_gettime and clock_getres take the ids Linux takes") {
  const std::string prog = test::program_path("x86_64-dyn", "host_waits");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "clocks"}).out.find("clock_gettime: 0 1 2 3 4 5 6 7") == 0);
  test::check_mode_like_native("host_waits", "clocks", {"x86_64", "x86_64-glibc", "x86_64-dyn", "x86_64-nopie", "aarch64", "aarch64-dyn"});
}

TEST_CASE("itimer: a periodic ITIMER_REAL expires 5 times in 5 periods of the clock") {
  test::check_mode_like_native("host_waits", "itimer", {"x86_64", "x86_64-glibc", "x86_64-dyn", "x86_64-nopie", "aarch64", "aarch64-dyn"});
}

TEST_CASE("host waits: Debian's `timeout 1 sleep 5` kills sleep after 1 s and exits 124, as natively") {
  const char* timeout = "/usr/bin/timeout";
  if (!fs::exists(timeout) || !fs::exists("/bin/sleep")) return;
  REQUIRE(test::run_native({timeout, "1", "/bin/sleep", "5"}).status == 124);
  const std::string out = test::temp_trace("host-waits-timeout");
  RecordOptions o = test::capture_options({timeout, "1", "/bin/sleep", "5"}, out);
  o.env = {"LC_ALL=C"};
  auto r = record(o);
  REQUIRE_MESSAGE(r.ok(), test::error_text(r));
  test::check_clean(*r);
  CHECK(!r->deadlock);
  CHECK(r->exit_code == 124);  // (0 when the timer did not fire during the wait: sleep ran its 5 s)
  CHECK(!r->signal_from_outside);
  fs::remove(out);
}

TEST_CASE("host wait clock: a host wait is bounded by the next timer's due time") {
  // No timer, no timeout of its own: until the host answers.
  CHECK(!host_wait_bound(100, kNoTimer).ns);
  HostWaitBound b = host_wait_bound(100, 1100);
  REQUIRE(b.ns);
  CHECK(*b.ns == 1000);
  CHECK(b.timer);
  // A timer due already: poll once, then it fires.
  b = host_wait_bound(100, 50);
  CHECK(*b.ns == 0);
  CHECK(b.timer);
  // The call's own timeout (poll on a socket) when it is shorter.
  b = host_wait_bound(100, 1100, 300);
  CHECK(*b.ns == 300);
  CHECK(!b.timer);
  b = host_wait_bound(100, 1100, 5000);
  CHECK(*b.ns == 1000);
  CHECK(b.timer);
  b = host_wait_bound(100, kNoTimer, 7);
  CHECK(*b.ns == 7);
  CHECK(!b.timer);
}

TEST_CASE("host wait clock: the clock after a host wait") {
  // The timer's bound passed: exactly its due time, whatever the wall said.
  CHECK(clock_after_host_wait(100, 1100, 1037, true) == 1100);
  CHECK(clock_after_host_wait(100, 1100, 990, true) == 1100);
  // Ended first: the wall time it took.
  CHECK(clock_after_host_wait(100, 1100, 400, false) == 500);
  CHECK(clock_after_host_wait(100, kNoTimer, 5000000000, false) == 5000000100);
  // Never past a timer that did not fire yet (it fires at the clock's next look).
  CHECK(clock_after_host_wait(100, 1100, 2000, false) == 1100);
  // Never backwards, a timer overdue or not.
  CHECK(clock_after_host_wait(100, 50, 0, true) == 100);
  CHECK(clock_after_host_wait(100, 50, 10, false) == 100);
  CHECK(clock_after_host_wait(kNoTimer - 5, kNoTimer, kNoTimer, false) == kNoTimer - 1);
  const timespec ts = to_timespec(1500000001);
  CHECK(ts.tv_sec == 1);
  CHECK(ts.tv_nsec == 500000001);
}

TEST_CASE("itimer: a periodic StepTimer expires on whole intervals, as Linux's hrtimer_forward") {
  StepTimer t{1000, 1000};  // armed at 0, every 1000 ns
  CHECK(t.expire(999) == 0);
  CHECK(t.expire(1003) == 1);  // looked at late: the next expiry stays on the grid
  CHECK(t.expiry == 2000);
  CHECK(t.expire(2000) == 1);
  CHECK(t.expiry == 3000);
  CHECK(t.expire(5500) == 3);  // 3000, 4000, 5000 passed
  CHECK(t.expiry == 6000);
  StepTimer once{10, 0};
  CHECK(once.expire(15) == 1);
  CHECK(!once.armed());
}

TEST_CASE("clocks: one list of the clock ids, and of those counted from the epoch") {
  for (int c : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11}) CHECK(StepClock::known(uint64_t(c)));
  CHECK(!StepClock::known(10));
  CHECK(!StepClock::known(12));
  CHECK(!StepClock::known(uint64_t(-1)));
  const StepClock clock{1700000000ull * 1000000000};
  for (int c : {kClockRealtime, kClockRealtimeCoarse, kClockRealtimeAlarm, kClockTai})
    CHECK(clock.origin(c) == clock.epoch_ns);
  for (int c : {kClockMonotonic, kClockProcessCputime, kClockThreadCputime, kClockMonotonicRaw,
                kClockMonotonicCoarse, kClockBoottime, kClockBoottimeAlarm})
    CHECK(clock.origin(c) == 0);
}

}  // namespace test_host_waits
