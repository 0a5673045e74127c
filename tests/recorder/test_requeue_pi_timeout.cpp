// FUTEX_WAIT_REQUEUE_PI's timeouts under the recorder:
// programs/requeue_pi_timeout.c. A timeout before any requeue returns
// -ETIMEDOUT with the PI lock not taken and nobody left to requeue; one
// after FUTEX_CMP_REQUEUE_PI moved the waiter to the held PI lock returns
// -ETIMEDOUT too, and the waiter no longer waits for the lock (the
// signaller's FUTEX_UNLOCK_PI leaves it free, not handed on). Virtual
// time: a timed wait expires when no other thread can run. Output equals
// the native run's, the trace agrees with the emulator (verify), and both
// waits are in it returning -ETIMEDOUT.
#include <doctest/doctest.h>

#include <cerrno>
#include <filesystem>

#include "tests/recorder/recording_support.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

TEST_CASE("requeue PI: timeouts before and after the requeue print what they print natively") {
  const std::string glibc_prog = test::program_path("x86_64-dyn", "requeue_pi_timeout");
  if (glibc_prog.empty()) return;
  const std::string glibc_native = test::run_native({glibc_prog}).out;
  REQUIRE(glibc_native ==
          "before requeue: -1 errno 110, lock word 0\n"
          "requeue after the timeout: 0, lock word 0\n"
          "requeued: 1, waiters bit 1\n"
          "after requeue: errno 110, owner is the signaller 1\n"
          "unlock_pi: 0\n"
          "lock word after unlock: 0\n");

  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "requeue_pi_timeout");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const bool x86 = std::string(variant).rfind("x86_64", 0) == 0;
    const std::string native = x86 ? test::run_native({prog}).out : glibc_native;
    const std::string out = test::temp_trace(std::string("requeue-pi-timeout-") + variant);
    RecordOptions o = test::capture_options({prog}, out);
    o.quantum = 3000;
    test::check_records_like_native(o, native);

    auto t = test::read_trace(out);
    REQUIRE_MESSAGE(t.ok(), test::error_text(t));
    const uint64_t futex_nr = t->arch == "x86_64" ? 202 : 98;
    size_t timed_out = 0;
    for (const auto& s : t->syscalls)
      if (s.number == futex_nr && s.args.size() >= 2 && (s.args[1] & 127) == 11 && int64_t(s.ret) == -ETIMEDOUT)
        ++timed_out;
    CHECK(timed_out == 2);
    fs::remove(out);
  }
}
