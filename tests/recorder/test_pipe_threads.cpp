// A read from an empty pipe (or a write to a full one) that another guest
// thread will satisfy waits in that guest thread only, as a futex wait
// does: programs/pipe_threads.c, recorded, prints what it prints natively;
// every thread waiting on a pipe is a deadlock, reported.
//
// Each recording runs in a child process with an alarm: before the fix the
// recorder itself blocked in the host's read, and a hung test would tell
// nothing.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/recorder.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

constexpr unsigned kSecondsAllowed = 60;


struct Outcome {
  bool finished = false;  // the recorder returned (did not hang, did not crash)
  std::string report;     // "ok\n" or the error, then describe(), then the guest's stdout
};

// record() in a child process that the alarm ends if it hangs.
Outcome record_in_child(const std::string& prog, std::vector<std::string> args, const std::string& trace) {
  const std::string report = trace + ".report";
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    alarm(kSecondsAllowed);
    args.insert(args.begin(), prog);
    RecordOptions o = test::capture_options(args, trace);
    o.quantum = 5000;
    auto sum = record(o);
    std::ofstream f(report, std::ios::binary);
    if (!sum.ok()) f << "error: " << sum.error().to_string() << "\n";
    else f << "ok\n" << describe(*sum) << "stdout:\n" << sum->captured_stdout;
    f.close();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  Outcome o;
  o.finished = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  o.report = test::file_text(report);
  fs::remove(report);
  return o;
}

}  // namespace

TEST_CASE("pipes between threads: an empty-pipe read and a full-pipe write wait in their thread only") {
  const std::string native_prog = test::program_path("x86_64-dyn", "pipe_threads");
  if (native_prog.empty()) return;
  const std::string native = test::native_output(native_prog);
  REQUIRE(native.find("read 200000 bytes, sum ") == 0);
  for (const char* variant : {"x86_64", "x86_64-dyn", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "pipe_threads");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const std::string trace = test::temp_trace(std::string("pipe-threads-") + variant);
    Outcome o = record_in_child(prog, {}, trace);
    REQUIRE_MESSAGE(o.finished, "the recorder hung or died: " << o.report);
    CHECK(o.report.find("ok\n") == 0);
    CHECK(o.report.find("program exited with status 0\n") != std::string::npos);
    CHECK(o.report.find("unsupported") == std::string::npos);
    CHECK(o.report.substr(o.report.find("stdout:\n") + 8) == native);
    auto t = test::read_trace(trace);
    REQUIRE_MESSAGE(t.ok(), test::error_text(t));
    // The main thread's first read waited: the writer ran before it returned.
    CHECK(t->thread_begins == std::vector<uint64_t>{1, 2});
    fs::remove(trace);
  }
}

TEST_CASE("pipes between threads: every thread reading a pipe nobody writes is a deadlock, reported") {
  const std::string prog = test::program_path("x86_64-dyn", "pipe_threads");
  if (prog.empty()) return;
  const std::string trace = test::temp_trace("pipe-deadlock");
  Outcome o = record_in_child(prog, {"deadlock"}, trace);
  REQUIRE_MESSAGE(o.finished, "the recorder hung or died: " << o.report);
  CHECK(o.report.find("stopped: deadlock: every thread is blocked: thread 1 (tid 4242): read from fd 3 (a pipe); "
                      "thread 2 (tid 4243): read from fd 3 (a pipe)\n") != std::string::npos);
  auto t = test::read_trace(trace);
  REQUIRE_MESSAGE(t.ok(), test::error_text(t));
  CHECK(t->thread_ends.empty());  // both still wait at the end
  fs::remove(trace);
}
