// POSIX timers, timerfd and the guest's /proc/self/status under the
// recorder (docs/recording.md, "Timers" and "/proc"): programs/timers.c,
// one mode at a time (SIGEV_SIGNAL with overruns and TIMER_ABSTIME,
// SIGEV_THREAD_ID to a second thread, the C library's SIGEV_THREAD,
// timerfd reads, poll and epoll, /proc/self/status and stat), prints what
// it prints natively, on every build of the program; the trace agrees
// with the emulator (verify) and is the same bytes twice.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/recorder/recording_support.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_timers {

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

const char* const kVariants[] = {"x86_64", "x86_64-glibc", "x86_64-dyn", "x86_64-nopie", "aarch64", "aarch64-dyn"};
const char* const kModes[] = {"signal", "thread_id", "sigev_thread", "timerfd", "epoll", "proc"};

}  // namespace

TEST_CASE("timers: POSIX timers, timerfd and /proc/self/status print what they print natively") {
  const std::string glibc_prog = test::program_path("x86_64-dyn", "timers");
  if (glibc_prog.empty()) return;
  int ran = 0;
  for (const char* mode : kModes) {
    // AArch64 glibc prints what x86-64 glibc prints.
    const test::NativeRun glibc_native = test::run_native({glibc_prog, mode});
    REQUIRE(glibc_native.status == 0);
    for (const char* variant : kVariants) {
      const std::string prog = test::program_path(variant, "timers");
      if (prog.empty()) continue;
      INFO(variant << " " << mode);
      const bool aarch64 = variant[0] == 'a';
      const std::string native = aarch64 ? glibc_native.out : test::run_native({prog, mode}).out;
      const std::string out = test::temp_trace(std::string("timers-") + variant + "-" + mode);
      RecordOptions o = test::threaded_options(prog, out, {mode});
      o.env = {"LC_ALL=C"};
      test::check_records_like_native(o, native);
      // (Not "proc": stdio's fstat of a /proc/self memory file is the host
      // memfd's, whose inode and times differ between recordings.)
      if (std::string(variant) == "x86_64-dyn" && std::string(mode) != "proc")
        test::check_records_identically(o, out, test::temp_trace("timers-again"));
      fs::remove(out);
      ++ran;
    }
  }
  CHECK(ran > 0);
}

TEST_CASE("timers: what Linux answers natively, so the recorded runs are compared with it") {
  const std::string prog = test::program_path("x86_64-dyn", "timers");
  if (prog.empty()) return;
  const std::string timerfd = test::run_native({prog, "timerfd"}).out;
  CHECK(timerfd.find("one-shot: read 8, expirations 1\n") != std::string::npos);
  CHECK(timerfd.find("non-blocking: -1 EAGAIN 1\n") != std::string::npos);
  CHECK(timerfd.find("fstat type bits 0, link anon_inode:[timerfd]\n") != std::string::npos);
  CHECK(test::run_native({prog, "epoll"}).out ==
        "epoll round 0: 1 event(s): pipe\nepoll round 1: 1 event(s): timerfd (1 expiration)\n"
        "epoll with a 5 s timeout: 1 event(s), timerfd 1, 1 expiration\nepoll with nothing armed, 1 ms: 0\n");
  const std::string proc = test::run_native({prog, "proc"}).out;
  CHECK(proc.find("Threads 3\n") != std::string::npos);
  CHECK(proc.find("stat: field 1 is getpid 1, comm ttd-timers, state R, field 20 3\n") != std::string::npos);
}

}  // namespace test_timers
