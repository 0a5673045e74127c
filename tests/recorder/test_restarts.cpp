// Calls a signal handler interrupts end as on Linux once it returns
// (syscall_restart.h; docs/recording.md, "Signals"): programs/restarts.c
// prints what it prints natively. Until 2026-11-29 the recorder restarted
// every futex call after a SA_RESTART handler (a timed wait then timed
// out instead of failing with EINTR) and failed accept and recv with EINTR
// (Linux restarts them).
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/linux_abi_constants.h"
#include "tools/recorder/syscall_restart.h"

namespace test_restarts {

using namespace ttd;
using namespace ttd::rec;

namespace {

const std::initializer_list<const char*> kVariants = {"x86_64", "x86_64-dyn", "aarch64"};

}  // namespace

TEST_CASE("restarts: a futex wait with a timeout fails with EINTR even with SA_RESTART") {
  const std::string prog = test::program_path("x86_64-dyn", "restarts");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "futex-timed"}).out ==
        "FUTEX_WAIT with a timeout: Interrupted system call, handler ran 1 time(s)\n"
        "FUTEX_WAIT_BITSET with an end: Interrupted system call, handler ran 1 time(s)\n");
  test::check_mode_like_native("restarts", "futex-timed", kVariants);
}

TEST_CASE("restarts: accept and recv go on after a SA_RESTART handler, and accept fails without one") {
  for (const char* mode : {"accept", "recv", "accept-eintr"}) {
    CAPTURE(mode);
    test::check_mode_like_native("restarts", mode, kVariants);
  }
}

TEST_CASE("restarts: an untimed futex wait goes on, and FUTEX_LOCK_PI always does") {
  test::check_mode_like_native("restarts", "futex", kVariants);
  test::check_mode_like_native("restarts", "lock-pi", kVariants);
}

TEST_CASE("after_handler: Linux's restart rules by call and arguments") {
  const uint64_t untimed_wait[6] = {0x1000, kFutexWait | 128, 0, 0, 0, 0};
  const uint64_t timed_wait[6] = {0x1000, kFutexWaitBitset, 0, 0x2000, 0, ~0u};
  const uint64_t lock_pi[6] = {0x1000, kFutexLockPi, 0, 0, 0, 0};
  const uint64_t none[6] = {};
  CHECK(after_handler(Sys::Futex, untimed_wait, -1) == AfterHandler::RestartIfSaRestart);
  CHECK(after_handler(Sys::Futex, timed_wait, -1) == AfterHandler::Eintr);
  CHECK(after_handler(Sys::Futex, lock_pi, -1) == AfterHandler::Restart);
  CHECK(after_handler(Sys::Read, none, -1) == AfterHandler::RestartIfSaRestart);
  CHECK(after_handler(Sys::Nanosleep, none, -1) == AfterHandler::Eintr);
  CHECK(after_handler(Sys::EpollWait, none, -1) == AfterHandler::Eintr);
  const uint64_t setlkw[6] = {3, 7, 0, 0, 0, 0}, getlk[6] = {3, 5, 0, 0, 0, 0};
  CHECK(after_handler(Sys::Fcntl, setlkw, -1) == AfterHandler::RestartIfSaRestart);
  CHECK(after_handler(Sys::Fcntl, getlk, -1) == AfterHandler::Eintr);

  // A socket with a receive timeout: its receives fail with EINTR, its sends still restart.
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  CHECK(after_handler(Sys::Recvfrom, none, sv[0]) == AfterHandler::RestartIfSaRestart);
  const timeval tv{1, 0};
  REQUIRE(::setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0);
  CHECK(after_handler(Sys::Recvfrom, none, sv[0]) == AfterHandler::Eintr);
  CHECK(after_handler(Sys::Accept4, none, sv[0]) == AfterHandler::Eintr);
  CHECK(after_handler(Sys::Sendto, none, sv[0]) == AfterHandler::RestartIfSaRestart);
  CHECK(after_handler(Sys::Read, none, sv[0]) == AfterHandler::Eintr);
  CHECK(after_handler(Sys::Write, none, sv[0]) == AfterHandler::RestartIfSaRestart);
  CHECK(after_handler(Sys::Read, none, sv[1]) == AfterHandler::RestartIfSaRestart);
  ::close(sv[0]);
  ::close(sv[1]);
}

}  // namespace test_restarts
