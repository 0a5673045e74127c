// epoll after dup and close, and sets in sets, under the recorder:
// programs/epoll_nest.c. An item outlives its fd while a dup of its file
// is open and goes with the last descriptor (EBADF / ENOENT for the old
// and the dup'd number, a reused number is another item); a set in a set
// is readable while its ready list is not empty (level, edge, poll), the
// loop and depth answers, and a thread waiting on the outer set woken by
// a write into the inner set's pipe and by an epoll_ctl on the inner set.
// Output equals the native run's, the trace agrees with the emulator
// (verify); the only thread waiting on an outer set whose inner set
// watches a pipe nobody writes is a deadlock naming that pipe.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/recorder/recording_support.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

}  // namespace

TEST_CASE("epoll: items after dup and close, and nested sets, print what they print natively") {
  const std::string glibc_prog = test::program_path("x86_64-dyn", "epoll_nest");
  if (glibc_prog.empty()) return;
  const std::string glibc_native = test::run_native({glibc_prog}).out;
  // What Linux says, whatever the recorder does.
  REQUIRE(glibc_native.find("after dup+close: n 1 100/0x1\n") != std::string::npos);
  REQUIRE(glibc_native.find("del the dup: -2\n") != std::string::npos);
  REQUIRE(glibc_native.find("after last close: n 1 200/0x1\n") != std::string::npos);
  REQUIRE(glibc_native.find("outer: n 1 2/0x1\n") != std::string::npos);
  REQUIRE(glibc_native.find("outer in inner (a loop): -40\n") != std::string::npos);
  REQUIRE(glibc_native.find("top down: 0 0 0 0 -40 0 0\n") != std::string::npos);

  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "epoll_nest");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const bool x86 = std::string(variant).rfind("x86_64", 0) == 0;
    const std::string native = x86 ? test::run_native({prog}).out : glibc_native;
    const std::string out = test::temp_trace(std::string("epoll-nest-") + variant);
    RecordOptions o = test::threaded_options(prog, out);
    test::check_records_like_native(o, native);
    fs::remove(out);
  }
}

TEST_CASE("epoll: the only thread waiting on a set whose inner set watches an unwritten pipe is a deadlock naming it") {
  for (const char* variant : {"x86_64-dyn", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "epoll_nest");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const std::string out = test::temp_trace("epoll-nest-deadlock");
    const std::string report = test::deadlock_report(test::threaded_options(prog, out, {"deadlock"}));
    const std::string call = std::string(variant) == "x86_64-dyn" ? "epoll_wait" : "epoll_pwait";
    // fds 3 and 4 are the sets, 5 the pipe's read end.
    CHECK(report == "every thread is blocked: thread 1 (tid 4242): " + call + " on fd 5 (a pipe, to read)");
    fs::remove(out);
  }
}
