// eventfd and epoll under the recorder: programs/eventfd_epoll.c. Two
// threads handing values over an eventfd (blocking reads that wait for
// the other thread's write), the counter's rules (semaphore mode,
// non-blocking, short reads, overflow, poll), an epoll loop over a pipe
// and an eventfd fed by a worker thread, and epoll's answers (EPERM for a
// regular file, EEXIST, ENOENT, level, edge and one-shot reporting, the
// ready list's order, hang-up), and a wait on an empty set that another
// thread's epoll_ctl ends, print what they print natively; the trace
// agrees with the emulator (verify) and is the same bytes twice. The only
// thread waiting in epoll on a pipe nobody writes is a deadlock naming it.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/recorder/recording_support.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

bool is_epoll_wait(const std::string& arch, uint64_t n) {
  return arch == "x86_64" ? (n == 232 || n == 281) : n == 22;
}
bool is_eventfd(const std::string& arch, uint64_t n) { return arch == "x86_64" ? (n == 284 || n == 290) : n == 19; }

}  // namespace

TEST_CASE("eventfd/epoll: threads over an eventfd and an epoll loop print what they print natively") {
  const std::string glibc_prog = test::program_path("x86_64-dyn", "eventfd_epoll");
  if (glibc_prog.empty()) return;
  const std::string glibc_native = test::run_native({glibc_prog}).out;
  REQUIRE(glibc_native.find("eventfd: sum 10\n") != std::string::npos);
  REQUIRE(glibc_native.find("add file: -1 errno 1\n") != std::string::npos);  // EPERM

  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "eventfd_epoll");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const bool x86 = std::string(variant).rfind("x86_64", 0) == 0;
    // AArch64 glibc prints what x86-64 glibc prints.
    const std::string native = x86 ? test::run_native({prog}).out : glibc_native;
    const std::string out = test::temp_trace(std::string("eventfd-epoll-") + variant);
    RecordOptions o = test::threaded_options(prog, out);
    test::check_records_like_native(o, native);

    auto t = test::read_trace(out);
    REQUIRE_MESSAGE(t.ok(), test::error_text(t));
    // The epoll loop's waits returned events, written into guest memory.
    size_t waits_with_events = 0, eventfds = 0;
    for (const auto& s : t->syscalls) {
      if (is_epoll_wait(t->arch, s.number) && int64_t(s.ret) > 0 && s.mem_writes == 1) ++waits_with_events;
      eventfds += is_eventfd(t->arch, s.number);
    }
    CHECK(waits_with_events >= 6);
    CHECK(eventfds >= 6);

    if (x86) test::check_records_identically(o, out, test::temp_trace("eventfd-epoll-again"));
    fs::remove(out);
  }
}

TEST_CASE("eventfd/epoll: the only thread waiting in epoll on a pipe nobody writes is a deadlock naming it") {
  for (const char* variant : {"x86_64-dyn", "x86_64", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "eventfd_epoll");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const std::string out = test::temp_trace("epoll-deadlock");
    const std::string report = test::deadlock_report(test::threaded_options(prog, out, {"deadlock"}));
    // glibc's epoll_wait is epoll_wait on x86-64; musl's is epoll_pwait;
    // AArch64 has epoll_pwait only.
    const std::string call = std::string(variant) == "x86_64-dyn" ? "epoll_wait" : "epoll_pwait";
    CHECK(report == "every thread is blocked: thread 1 (tid 4242): " + call + " on fd 3 (a pipe, to read)");
    fs::remove(out);
  }
}
