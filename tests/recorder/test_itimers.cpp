// Interval timers under the recorder (docs/recording.md, "Timers"):
// programs/itimers.c prints what it prints natively, on every build.
// ITIMER_VIRTUAL and ITIMER_PROF count CPU time (a sleep does not bring
// them on: before, they counted the virtual clock and a 200 ms sleep fired
// them); alarm and setitimer's timers survive execve (before, the next
// image had none) and a fork's child has none of its parent's interval or
// POSIX timers (before, it kept the recorder's copy).
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/recorder/recording_support.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_itimers {

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

const char* const kVariants[] = {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64", "aarch64-dyn"};

const char* const kNative[] = {
    "a 200 ms sleep: returned 0, SIGVTALRM 0, SIGPROF 0\nITIMER_VIRTUAL left after the sleep > 2 ms: 1\n"
    "ITIMER_PROF left after the sleep > 2 ms: 1\nspinning: SIGVTALRM 1, SIGPROF 1\n",
    "after execve: ITIMER_REAL kept 1\nafter execve: the POSIX timer is gone 1\nafter execve: alarm(0) says 100\n",
    "fork's child: ITIMER_REAL disarmed 1, ITIMER_VIRTUAL 1, ITIMER_PROF 1, POSIX timer gone 1, no alarm 1\n"
    "the parent's ITIMER_REAL still runs 1, POSIX timer still there 1\n",
};
const char* const kModes[] = {"cpu", "exec", "fork"};

}  // namespace

TEST_CASE("interval timers: CPU-time timers, execve and fork as natively") {
  const std::string native_prog = test::program_path("x86_64-dyn", "itimers");
  if (native_prog.empty()) return;
  for (int m = 0; m < 3; ++m) {
    // What Linux prints, whatever the recorder does.
    const test::NativeRun native = test::run_native({native_prog, kModes[m]});
    REQUIRE(native.status == 0);
    REQUIRE(native.out == kNative[m]);
  }
  int ran = 0;
  for (const char* variant : kVariants) {
    const std::string prog = test::program_path(variant, "itimers");
    if (prog.empty()) continue;
    for (int m = 0; m < 3; ++m) {
      INFO(variant << " " << kModes[m]);
      const std::string out = test::temp_trace(std::string("itimers-") + variant + "-" + kModes[m] + ".ucir");
      RecordOptions o = test::capture_options({prog, kModes[m]}, out);
      o.env = {"LC_ALL=C"};
      const RecordSummary sum = test::check_records_like_native(o, kNative[m]);
      for (const RecordedTrace& t : sum.traces) fs::remove(t.path);
      ++ran;
    }
  }
  CHECK(ran > 0);
}

}  // namespace test_itimers
