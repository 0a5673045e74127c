// Guest signal handlers under the recorder (docs/recording.md, "Signals"):
// programs/signals.c raises, faults, blocks, waits for and sends signals
// to threads; recorded, each mode prints what it prints natively, the
// trace agrees with the emulator (verify), and the handler's own steps
// are in the trace.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>

#include "tests/recorder/recording_support.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_signals {

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

const char* const kVariants[] = {"x86_64", "x86_64-glibc", "x86_64-dyn", "x86_64-nopie", "aarch64", "aarch64-dyn"};

// The address of `symbol` in a non-PIE program (nm), 0 if not found.
uint64_t symbol_address(const std::string& prog, const std::string& symbol) {
  const test::NativeRun nm = test::run_shell("nm '" + prog + "' | grep ' [tT] " + symbol + "$'");
  return nm.out.empty() ? 0 : std::strtoull(nm.out.c_str(), nullptr, 16);
}

}  // namespace

TEST_CASE("signals: handlers, SA_SIGINFO, ucontext edits, siglongjmp, sigaltstack, masks, SA_RESETHAND, SIGFPE, SIGCHLD, tgkill, int3/brk, ud2/udf and interval timers print what they print natively") {
  int ran = 0;
  for (const char* variant : kVariants) {
    const std::string prog = test::program_path(variant, "signals");
    if (prog.empty()) continue;
    const bool aarch64 = variant[0] == 'a';
    // AArch64's native output is the x86-64 glibc build's.
    const std::string native_prog = aarch64 ? test::program_path("x86_64-dyn", "signals") : prog;
    if (native_prog.empty()) continue;
    for (const char* mode : {"raise", "mcontext", "longjmp", "altstack", "mask", "resethand", "fpe", "chld", "tgkill", "trap", "alarm"}) {
      if (aarch64 && std::string(mode) == "fpe") continue;  // AArch64 division by zero gives 0, no signal
      INFO(variant << " " << mode);
      const test::NativeRun native = test::run_native({native_prog, mode});
      REQUIRE(native.status == 0);
      const std::string out = test::temp_trace(std::string("signals-") + variant + "-" + mode);
      RecordOptions o = std::string(mode) == "tgkill" || std::string(mode) == "altstack"
                            ? test::threaded_options(prog, out, {mode})
                            : test::capture_options({prog, mode}, out);
      o.env = {"LC_ALL=C"};
      test::check_records_like_native(o, native.out);
      fs::remove(out);
      ++ran;
    }
  }
  CHECK(ran > 0);
}

TEST_CASE("signals: what Linux answers, whatever the recorder does") {
  const std::string prog = test::program_path("x86_64-dyn", "signals");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "mask"}).out ==
        "blocked: ran 0, pending USR1 1 USR2 1\n"
        "unblocked: ran 2, order 12 10\n"  // SIGUSR2's frame nests on SIGUSR1's: its handler runs first
        "sigsuspend: -1 EINTR, ran 3, USR1 blocked again 1\n"
        "sigtimedwait: 12 code 0, ran 3\n"  // glibc turns SI_TKILL into SI_USER here
        "sigtimedwait with nothing pending: -1 EAGAIN\n");
  CHECK(test::run_native({prog, "tgkill"}).out ==
        "worker read: -1 EINTR\nhandler ran in the worker: 1\nwith SA_RESTART:\nworker read: 1 byte\n"
        "handler ran in the worker: 1\n");
}

TEST_CASE("signals: the handler's steps are in the trace, the frame is the kernel's writes, rt_sigreturn returns") {
  for (const char* variant : {"x86_64", "x86_64-nopie"}) {
    const std::string prog = test::program_path(variant, "signals");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const uint64_t handler = symbol_address(prog, "plain");
    REQUIRE(handler != 0);
    const std::string out = test::temp_trace(std::string("signals-trace-") + variant);
    RecordOptions o = test::capture_options({prog, "raise"}, out);
    o.env = {"LC_ALL=C"};
    o.verify = true;
    auto sum = record(o);
    REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
    test::check_clean(*sum);
    auto d = test::read_trace(out);
    REQUIRE_MESSAGE(d.ok(), test::error_text(d));
    // The handler's first step follows the syscall the signal was delivered
    // at (tgkill; musl's raise: the rt_sigprocmask that unblocks it again).
    size_t at = 0;
    for (; at < d->pcs.size(); ++at)
      if (d->pcs[at] == handler) break;
    REQUIRE(at < d->pcs.size());
    bool frame_written = false, sigreturn = false;
    for (const test::SyscallRecord& s : d->syscalls) {
      if (s.eid + 1 == at) frame_written = s.mem_writes > 0;
      if (s.number == 15 && s.eid > at) sigreturn = true;
    }
    CHECK(frame_written);
    CHECK(sigreturn);
    fs::remove(out);
  }
}

}  // namespace test_signals
