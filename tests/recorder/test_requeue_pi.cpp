// FUTEX_WAIT_REQUEUE_PI / FUTEX_CMP_REQUEUE_PI under the recorder:
// programs/requeue_pi.c. Three waiters requeued from a condition word to
// a PI lock, once with the lock free (the first waiter is given it and
// woken) and once with the signaller holding it (all wait for it and are
// handed it in turn by FUTEX_UNLOCK_PI); the calls' error answers; and a
// pthread condition variable over a PTHREAD_PRIO_INHERIT mutex. Output
// equals the native run's, the trace agrees with the emulator (verify)
// and is the same bytes twice.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/recorder/recording_support.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

bool is_futex(const std::string& arch, uint64_t n) { return arch == "x86_64" ? n == 202 : n == 98; }
constexpr uint64_t kWaitRequeuePi = 11, kCmpRequeuePi = 12;

}  // namespace

TEST_CASE("requeue PI: waiters requeued to a PI lock print what they print natively") {
  const std::string glibc_prog = test::program_path("x86_64-dyn", "requeue_pi");
  if (glibc_prog.empty()) return;
  const std::string glibc_native = test::run_native({glibc_prog}).out;
  REQUIRE(glibc_native.find("round free: woken or requeued 3, counter 3, results 0 0 0, lock word 0\n") !=
          std::string::npos);

  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "requeue_pi");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const bool x86 = std::string(variant).rfind("x86_64", 0) == 0;
    const std::string native = x86 ? test::run_native({prog}).out : glibc_native;
    const std::string out = test::temp_trace(std::string("requeue-pi-") + variant);
    RecordOptions o = test::capture_options({prog}, out);
    o.quantum = 3000;
    test::check_records_like_native(o, native);

    auto t = test::read_trace(out);
    REQUIRE_MESSAGE(t.ok(), test::error_text(t));
    // Waits that returned owning the lock (three per round), and requeues
    // that moved or woke someone; the first of a round writes the lock
    // word (the new owner, or FUTEX_WAITERS for the signaller's unlock).
    size_t waits_ok = 0, requeues = 0, requeues_writing = 0;
    for (const auto& s : t->syscalls) {
      if (!is_futex(t->arch, s.number) || s.args.size() < 2) continue;
      const uint64_t op = s.args[1] & 127;
      if (op == kWaitRequeuePi && s.ret == 0) ++waits_ok;
      if (op == kCmpRequeuePi && int64_t(s.ret) > 0) {
        ++requeues;
        requeues_writing += s.mem_writes > 0;
      }
    }
    CHECK(waits_ok == 6);
    CHECK(requeues >= 2);
    CHECK(requeues_writing >= 2);

    if (x86) {
      const std::string again = test::temp_trace("requeue-pi-again");
      RecordOptions o2 = test::capture_options({prog}, again);
      o2.quantum = 3000;
      o2.verify = true;
      auto sum2 = record(o2);
      REQUIRE(sum2.ok());
      CHECK(test::file_text(out) == test::file_text(again));
      fs::remove(again);
    }
    fs::remove(out);
  }
}
