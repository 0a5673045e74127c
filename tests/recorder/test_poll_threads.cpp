// poll, ppoll, select and pselect6 under the recorder: programs/
// poll_threads.c, two threads talking over pipes (the main thread waits in
// poll, the worker in select: pselect6 with glibc, select with musl), zero
// and finite timeouts, a regular file, stdout, a closed fd and a hang-up,
// prints what it prints natively, the same trace bytes twice; both
// threads waiting is a deadlock whose report names the calls; a FIFO
// opened by path is asked of the host (cli_outside_waits.py waits on one).
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>

#include "tests/recorder/recording_support.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

// poll (x86-64) / ppoll (AArch64, which has no poll).
bool is_poll(const std::string& arch, uint64_t n) { return arch == "x86_64" ? n == 7 : n == 73; }

}  // namespace

TEST_CASE("poll/select: threads talking over pipes print what they print natively, the same trace twice") {
  const std::string glibc_prog = test::program_path("x86_64-dyn", "poll_threads");
  if (glibc_prog.empty()) return;
  const std::string glibc_native = test::run_native({glibc_prog}).out;
  REQUIRE(glibc_native.find("main: poll 1 revents 0x1 read \"echo(message 0)\"\n") == 0);
  REQUIRE(glibc_native.find("worker: after hang-up poll 1 revents 0x10\n") != std::string::npos);

  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "poll_threads");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const bool x86 = std::string(variant).rfind("x86_64", 0) == 0;
    // x86-64 programs run natively here (musl's select leaves the caller's
    // timeval alone, glibc's copies the time left back); AArch64 glibc
    // prints what x86-64 glibc prints.
    const std::string native = x86 ? test::run_native({prog}).out : glibc_native;
    const std::string out = test::temp_trace(std::string("poll-threads-") + variant);
    RecordOptions o = test::threaded_options(prog, out);
    const RecordSummary summary = test::check_records_like_native(o, native);
    CHECK(summary.threads == 2);

    auto t = test::read_trace(out);
    REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().to_string()));
    // Each of the main thread's five polls for a reply found the pipe
    // empty, waited, and is recorded once, returning 1 with revents written.
    size_t replies = 0, timeouts = 0;
    for (const auto& s : t->syscalls) {
      if (!is_poll(t->arch, s.number) || t->tids.at(s.eid) != 1) continue;
      if (s.ret == 1 && s.mem_writes == 1) ++replies;
      if (s.ret == 0) ++timeouts;
    }
    CHECK(replies >= 5);
    CHECK(timeouts >= 2);  // timeout 0 and 30 ms (and ppoll's 20 ms on AArch64)

    if (x86) test::check_records_identically(o, out, test::temp_trace("poll-threads-again"));
    fs::remove(out);
  }
}

TEST_CASE("poll/select: every thread waiting on a pipe nobody writes is a deadlock naming the calls") {
  for (const char* variant : {"x86_64-dyn", "x86_64", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "poll_threads");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const std::string out = test::temp_trace("poll-deadlock");
    const std::string report = test::deadlock_report(test::threaded_options(prog, out, {"deadlock"}));
    // glibc's select is pselect6; musl's on x86-64 is select; AArch64 has ppoll only.
    const std::string v = variant;
    const std::string poll_name = v.rfind("aarch64", 0) == 0 ? "ppoll" : "poll";
    const std::string select_name = v == "x86_64" ? "select" : "pselect6";
    CHECK(report == "every thread is blocked: thread 1 (tid 4242): " + poll_name +
                      " on fd 3 (a pipe, to read); thread 2 (tid 4243): " + select_name +
                      " on fd 3 (a pipe, to read)");
    fs::remove(out);
  }
}

TEST_CASE("poll/select: a FIFO opened by path is polled on the host, as natively, also with --strict") {
  // (Before session 20 it was refused with ENOSYS, listed, and --strict stopped.)
  const std::string prog = test::program_path("x86_64-dyn", "poll_threads");
  if (prog.empty()) return;
  const fs::path dir = fs::temp_directory_path() / ("ttd-poll-fifo-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string fifo = (dir / "fifo").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const std::string native = test::run_native({prog, "fifo", fifo}).out;
  CHECK(native == "fifo: poll 0 errno 0\n");  // no writer yet: nothing to read, no hang-up
  const std::string out = test::temp_trace("poll-fifo");
  RecordOptions o = test::threaded_options(prog, out, {"fifo", fifo});
  o.strict = true;
  auto sum = record(o);
  REQUIRE_MESSAGE(sum.ok(), (sum.ok() ? "" : sum.error().to_string()));
  CHECK(sum->captured_stdout == native);
  CHECK(sum->unsupported.empty());
  fs::remove(out);
  fs::remove_all(dir);
}
