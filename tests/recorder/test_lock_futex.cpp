// PI and robust futexes under the recorder: programs/lock_futex.c. A
// PTHREAD_PRIO_INHERIT mutex under contention (threads wait in
// FUTEX_LOCK_PI and are handed the lock by FUTEX_UNLOCK_PI), a timed lock
// of it that expires (FUTEX_LOCK_PI2 with glibc), the futex
// answers for trylock, non-owner unlock and relock; a robust mutex (plain
// and PI) whose owner exits holding it gives the waiting thread
// EOWNERDEAD; robust lists that loop or point at unmapped memory are
// walked within bounds. Output compared with the native run; the same
// trace bytes twice.
#include <doctest/doctest.h>

#include <filesystem>
#include <unordered_map>
#include <variant>

#include "formats/ucir/ucir_format.h"

#include "tests/recorder/recording_support.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_lock_futex {

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

RecordOptions options(const std::string& prog, const std::string& out, const std::string& mode) {
  RecordOptions o = test::capture_options({prog, mode}, out);
  o.quantum = 3000;
  o.verify = true;
  return o;
}

bool is_futex(const std::string& arch, uint64_t n) { return arch == "x86_64" ? n == 202 : n == 98; }
bool is_exit(const std::string& arch, uint64_t n) { return arch == "x86_64" ? n == 60 : n == 93; }

constexpr uint64_t kLockPi = 6, kUnlockPi = 7, kLockPi2 = 13;

struct Recorded {
  std::string stdout_text;
  test::TraceDigest trace;
};

// Records `mode` of the program for `variant`, checks the run ended well
// and gives its output and trace (nullopt when the variant is not built).
std::optional<Recorded> record_mode(const std::string& variant, const std::string& mode, const std::string& out) {
  const std::string prog = test::program_path(variant, "lock_futex");
  if (prog.empty()) return std::nullopt;
  auto sum = record(options(prog, out, mode));
  REQUIRE_MESSAGE(sum.ok(), (sum.ok() ? "" : sum.error().to_string()));
  CHECK(sum->exited);
  CHECK(sum->exit_code == 0);
  CHECK_FALSE(sum->deadlock.has_value());
  CHECK_FALSE(sum->fault.has_value());
  for (const auto& u : sum->unsupported) FAIL_CHECK("unsupported syscall " << u.number << " " << u.name);
  for (const auto& e : sum->verify_errors) FAIL_CHECK(e);
  auto t = test::read_trace(out);
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().to_string()));
  return Recorded{sum->captured_stdout, *t};
}

// Reads a trace and checks, at every FUTEX_UNLOCK_PI that returned 0,
// that the lock word as the trace's memory writes so far leave it has
// FUTEX_WAITERS set: the C library calls the kernel to unlock only then,
// so a trace without the bit a parking waiter set (written between two
// steps) would show the owner unlocking through the kernel for no reason.
class UnlockWordCheck final : public fmt::TraceSink {
 public:
  size_t checked = 0, without_waiters_bit = 0;

  void begin(const fmt::TraceInfo& info) override { futex_ = arch_desc(info.arch).name == "x86_64" ? 202 : 98; }
  void step(const fmt::StepInfo& s) override {
    settle();
    syscall_ = s.kind == fmt::StepKind::Syscall;
    number_ = ret_ = ~0ull;
    args_.clear();
  }
  void attr(std::string_view key, const fmt::AttrValue& v) override {
    if (!syscall_) return;
    if (key == "syscall") number_ = std::get<uint64_t>(v);
    if (key == "ret") ret_ = std::get<uint64_t>(v);
    if (key == "args") args_ = std::get<std::vector<uint64_t>>(v);
  }
  void reg(uint64_t, uint16_t, std::span<const uint8_t>) override { settle(); }
  void mem_write(uint64_t, uint64_t addr, std::span<const uint8_t> bytes) override {
    settle();
    if (bytes.size() > 8) return;  // page contents: not lock words (they start as zero)
    for (size_t i = 0; i < bytes.size(); ++i) bytes_[addr + i] = bytes[i];
  }
  void end() override { settle(); }

 private:
  void settle() {
    if (!syscall_ || number_ != futex_ || ret_ != 0 || args_.size() < 2 || (args_[1] & 127) != kUnlockPi) {
      syscall_ = false;
      return;
    }
    syscall_ = false;
    uint32_t word = 0;
    for (int i = 0; i < 4; ++i) {
      auto it = bytes_.find(args_[0] + i);
      word |= uint32_t(it == bytes_.end() ? 0 : it->second) << (8 * i);
    }
    ++checked;
    without_waiters_bit += !(word & 0x80000000u);
  }
  uint64_t futex_ = 0, number_ = 0, ret_ = 0;
  bool syscall_ = false;
  std::vector<uint64_t> args_;
  std::unordered_map<uint64_t, uint8_t> bytes_;
};

// Every variant built (x86-64 ones compared with their own native run,
// AArch64 glibc with x86-64 glibc's).
const char* const kVariants[] = {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64", "aarch64-dyn"};

std::string native_for(const std::string& variant, const std::string& mode) {
  const bool x86 = variant.rfind("x86_64", 0) == 0;
  return test::run_native({test::program_path(x86 ? variant : "x86_64-dyn", "lock_futex"), mode}).out;
}

}  // namespace

TEST_CASE("PI futexes: a PTHREAD_PRIO_INHERIT mutex under contention, handed over in FIFO order") {
  if (test::program_path("x86_64-dyn", "lock_futex").empty()) return;
  for (const char* variant : kVariants) {
    INFO(std::string(variant));
    const std::string out = test::temp_trace(std::string("lock-pi-") + variant);
    auto r = record_mode(variant, "pi", out);
    if (!r) continue;
    const std::string native = native_for(variant, "pi");
    REQUIRE(native.find("counter 900 (expected 900)\n") == 0);
    CHECK(r->stdout_text == native);
    // Contention: threads waited in FUTEX_LOCK_PI and were handed the lock
    // (0); owners with waiters unlocked through the kernel.
    size_t handed = 0, unlocks = 0, timed_out = 0;
    // glibc's clocklock with CLOCK_MONOTONIC is FUTEX_LOCK_PI2, musl's timedlock FUTEX_LOCK_PI.
    const uint64_t timed_op = std::string(variant) == "x86_64" ? kLockPi : kLockPi2;
    for (const auto& s : r->trace.syscalls) {
      if (!is_futex(r->trace.arch, s.number) || s.args.size() < 2) continue;
      const uint64_t op = s.args[1] & 127;
      handed += op == kLockPi && s.ret == 0;
      unlocks += op == kUnlockPi && s.ret == 0;
      timed_out += op == timed_op && s.ret == uint64_t(-110);  // ETIMEDOUT
    }
    CHECK(handed >= 2);
    CHECK(unlocks >= 2);
    CHECK(timed_out == 1);
    {
      auto reader = fmt::ucir_format().open(out, {});
      REQUIRE(reader.ok());
      UnlockWordCheck check;
      REQUIRE((*reader)->read(check, nullptr).ok());
      CHECK(check.checked == unlocks);
      CHECK(check.without_waiters_bit == 0);
    }
    if (std::string(variant) == "x86_64-dyn") {
      const std::string again = test::temp_trace("lock-pi-again");
      REQUIRE(record(options(test::program_path(variant, "lock_futex"), again, "pi")).ok());
      CHECK(test::file_text(out) == test::file_text(again));
      fs::remove(again);
    }
    fs::remove(out);
  }
}

TEST_CASE("robust futexes: the owner exits holding the mutex, the waiter gets EOWNERDEAD") {
  if (test::program_path("x86_64-dyn", "lock_futex").empty()) return;
  for (const char* mode : {"robust", "robust-pi"}) {
    for (const char* variant : kVariants) {
      const std::string label = std::string(variant) + " " + mode;
      INFO(label);
      const std::string out = test::temp_trace(std::string("lock-robust-") + variant);
      auto r = record_mode(variant, mode, out);
      if (!r) continue;
      const std::string native = native_for(variant, mode);
      REQUIRE(native == "lock after the owner died: EOWNERDEAD\nconsistent: 0\nlock again: 0\n");
      CHECK(r->stdout_text == native);
      // With glibc, thread 2's exit step marked the lock (FUTEX_OWNER_DIED)
      // as well as clearing its clear-child-tid word (musl's pthread_exit
      // walks its robust list itself, before the exit call); the main
      // thread had waited.
      bool marked = false;
      for (const auto& s : r->trace.syscalls)
        if (is_exit(r->trace.arch, s.number) && r->trace.tids.at(s.eid) == 2) marked = s.mem_writes >= 2;
      if (std::string(variant) != "x86_64") CHECK(marked);
      bool waited = false;
      for (const auto& s : r->trace.syscalls)
        if (is_futex(r->trace.arch, s.number) && r->trace.tids.at(s.eid) == 1 && s.eid > 0) {
          const uint64_t op = s.args.size() > 1 ? s.args[1] & 127 : 99;
          waited = waited || ((op == 0 || op == 9 || op == kLockPi || op == 13) && s.ret == 0);
        }
      CHECK(waited);
      if (std::string(variant) == "x86_64-dyn") {
        const std::string again = test::temp_trace("lock-robust-again");
        REQUIRE(record(options(test::program_path(variant, "lock_futex"), again, mode)).ok());
        CHECK(test::file_text(out) == test::file_text(again));
        fs::remove(again);
      }
      fs::remove(out);
    }
  }
}

TEST_CASE("robust futexes: a looping or unmapped robust list is walked within bounds") {
  if (test::program_path("x86_64-dyn", "lock_futex").empty()) return;
  for (const char* variant : kVariants) {
    INFO(std::string(variant));
    const std::string out = test::temp_trace(std::string("lock-hostile-") + variant);
    auto r = record_mode(variant, "hostile", out);
    if (!r) continue;
    const std::string native = native_for(variant, "hostile");
    REQUIRE(native.find("looping list: set 0, lock word 0x40000000\n") == 0);
    CHECK(r->stdout_text == native);
    fs::remove(out);
  }
}

TEST_CASE("PI futexes: two threads waiting for each other's PI lock is a deadlock naming both waits") {
  for (const char* variant : {"x86_64-dyn", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "lock_futex");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const std::string out = test::temp_trace("lock-pi-deadlock");
    auto sum = record(options(prog, out, "pi-deadlock"));
    REQUIRE_MESSAGE(sum.ok(), (sum.ok() ? "" : sum.error().to_string()));
    REQUIRE(sum->deadlock.has_value());
    const std::string& d = *sum->deadlock;
    CHECK(d.find("every thread is blocked: thread 1 (tid 4242): futex lock_pi on 0x") == 0);
    CHECK(d.find(" (held by tid 4243); thread 2 (tid 4243): futex lock_pi on 0x") != std::string::npos);
    const std::string tail = " (held by tid 4242)";
    CHECK(d.rfind(tail) == d.size() - tail.size());
    CHECK(sum->unsupported.empty());
    fs::remove(out);
  }
}

}  // namespace test_lock_futex
