// Threads under the recorder: programs/threads.c (pthreads: a mutex, a
// condition variable, thread-local data, gettid) recorded for every
// variant built, its output compared with the native run, every step's
// thread read back; the deadlock, main-thread-exits and new-process modes.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "tests/recorder/recording_support.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

std::string native_output(const std::string& prog, const std::string& mode = "") {
  return ttd::rec::test::run_shell("env -i '" + prog + "'" + (mode.empty() ? "" : " " + mode)).out;
}

RecordOptions options(const std::string& prog, const std::string& out, std::vector<std::string> args = {}) {
  args.insert(args.begin(), prog);
  return test::capture_options(args, out);
}

// The syscall numbers of clone and clone3 per architecture.
bool is_clone(const std::string& arch, uint64_t n) {
  return n == 435 || (arch == "x86_64" ? n == 56 : n == 220);
}

}  // namespace

TEST_CASE("threads: a pthread program prints what it prints natively, every step on its thread") {
  const std::string native_prog = test::program_path("x86_64-dyn", "threads");
  if (native_prog.empty()) return;
  const std::string native = native_output(native_prog);
  REQUIRE(native.find("counter 18000 (expected 18000)\n") == 0);

  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn", "aarch64", "aarch64-dyn"}) {
    std::string prog = test::program_path(variant, "threads");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    std::string out = test::temp_trace(std::string("threads-") + variant);
    RecordOptions o = options(prog, out);
    o.verify = true;    // the mirror keeps one register file per thread
    o.quantum = 3000;   // many switches inside the loops
    auto sum = record(o);
    REQUIRE_MESSAGE(sum.ok(), (sum.ok() ? "" : sum.error().to_string()));
    CHECK(sum->exited);
    CHECK(sum->exit_code == 0);
    CHECK_FALSE(sum->fault.has_value());
    CHECK_FALSE(sum->deadlock.has_value());
    for (const auto& u : sum->unsupported) FAIL_CHECK("unsupported syscall " << u.number << " " << u.name);
    for (const auto& e : sum->verify_errors) FAIL_CHECK(e);
    CHECK(sum->captured_stdout == native);
    CHECK(sum->threads == 5);

    auto t = test::read_trace(out);
    REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().to_string()));
    CHECK(t->steps == sum->steps);
    REQUIRE(t->tids.size() == t->steps);
    // Five threads, each with steps, thread 1 first; the switches are many.
    std::set<uint64_t> tids(t->tids.begin(), t->tids.end());
    CHECK(tids == std::set<uint64_t>{1, 2, 3, 4, 5});
    CHECK(t->tids.front() == 1);
    size_t switches = 0;
    for (size_t i = 1; i < t->tids.size(); ++i) switches += t->tids[i] != t->tids[i - 1];
    CHECK(switches > 20);
    // The clones: four, each returning the new thread's tid, and each new
    // thread begins (with its pc) at its clone, before its first step.
    std::vector<uint64_t> clone_rets;
    for (const auto& s : t->syscalls)
      if (is_clone(t->arch, s.number)) clone_rets.push_back(s.ret);
    CHECK(clone_rets == std::vector<uint64_t>{4243, 4244, 4245, 4246});
    CHECK(t->thread_begins == std::vector<uint64_t>{1, 2, 3, 4, 5});
    CHECK(t->pc_registers == std::vector<uint64_t>{2, 3, 4, 5});
    // Threads 2-5 exit on their own; the process ends with thread 1.
    REQUIRE(t->thread_ends.size() == 5);
    CHECK(std::set<uint64_t>(t->thread_ends.begin(), t->thread_ends.end()) == tids);
    CHECK(t->thread_ends.back() == 1);

    if (std::string(variant).rfind("x86_64", 0) == 0) {
      // The same quantum gives the same trace bytes (dynamically linked
      // too: ld.so's rdtsc reads the virtual counter), another quantum
      // another interleaving.
      std::string again = test::temp_trace("threads-again");
      RecordOptions o2 = options(prog, again);
      o2.quantum = 3000;
      o2.verify = true;  // (verify writes an instruction's registers in another order)
      REQUIRE(record(o2).ok());
      CHECK(test::file_text(out) == test::file_text(again));
      o2.quantum = 7000;
      auto other = record(o2);
      REQUIRE(other.ok());
      CHECK(other->captured_stdout == native);
      auto t2 = test::read_trace(again);
      REQUIRE(t2.ok());
      CHECK(t2->tids != t->tids);
      fs::remove(again);
    }
    fs::remove(out);
  }
}

TEST_CASE("threads: every thread blocked is a deadlock, reported, and the trace is complete") {
  for (const char* variant : {"x86_64", "x86_64-dyn"}) {
    std::string prog = test::program_path(variant, "threads");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    std::string out = test::temp_trace("deadlock");
    auto sum = record(options(prog, out, {"deadlock"}));
    REQUIRE_MESSAGE(sum.ok(), (sum.ok() ? "" : sum.error().to_string()));
    REQUIRE(sum->deadlock.has_value());
    CHECK(sum->deadlock->find("every thread is blocked: thread 1 (tid 4242): futex wait on 0x") == 0);
    CHECK(sum->deadlock->find("thread 2 (tid 4243): futex wait on 0x") != std::string::npos);
    CHECK_FALSE(sum->exited);
    CHECK_FALSE(sum->fault.has_value());
    CHECK(describe(*sum).find("stopped: deadlock: every thread is blocked") != std::string::npos);
    auto t = test::read_trace(out);
    REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().to_string()));
    CHECK(t->steps == sum->steps);
    CHECK(t->thread_ends.empty());  // nobody exited: both still wait at the end
    fs::remove(out);
  }
}

TEST_CASE("threads: the main thread exits first, the last thread ends the process") {
  std::string prog = test::program_path("x86_64-dyn", "threads");
  if (prog.empty()) return;
  std::string out = test::temp_trace("main-exits");
  auto sum = record(options(prog, out, {"main-exits"}));
  REQUIRE_MESSAGE(sum.ok(), (sum.ok() ? "" : sum.error().to_string()));
  CHECK(sum->exited);
  CHECK(sum->exit_code == 0);
  CHECK(sum->captured_stdout == native_output(prog, "main-exits"));
  auto t = test::read_trace(out);
  REQUIRE(t.ok());
  // Thread 1 ends at its exit (the syscall step is its last); thread 2 goes on.
  REQUIRE(t->thread_ends == std::vector<uint64_t>{1, 2});
  size_t last1 = 0;
  for (size_t i = 0; i < t->tids.size(); ++i)
    if (t->tids[i] == 1) last1 = i;
  CHECK(last1 + 1 < t->tids.size());
  CHECK(t->tids.back() == 2);
  fs::remove(out);
}

TEST_CASE("threads: fork is followed, and execve in the recorded process is recorded into a second trace") {
  std::string prog = test::program_path("x86_64-dyn", "threads");
  if (prog.empty()) return;
  std::string out = test::temp_trace("newproc");
  // A fork's child runs unrecorded (tests/recorder/test_processes.cpp).
  auto forked = record(options(prog, out, {"fork"}));
  REQUIRE(forked.ok());
  CHECK(forked->exit_code == 0);
  CHECK(forked->captured_stderr == "");
  CHECK(forked->unsupported.empty());
  fs::remove(out);

  // execve of the recorded process: the recording goes on in out.1, where
  // the program runs again in its default mode (test_exec.cpp).
  auto direct = record(options(prog, out, {}));
  REQUIRE(direct.ok());
  fs::remove(out);
  for (bool strict : {false, true}) {
    RecordOptions o = options(prog, out, {"exec"});
    o.strict = strict;
    auto sum = record(o);
    REQUIRE(sum.ok());
    CHECK(sum->unsupported.empty());
    CHECK(sum->exit_code == direct->exit_code);
    CHECK(sum->captured_stdout == direct->captured_stdout);
    REQUIRE(sum->traces.size() == 2);
    CHECK(sum->traces[1].steps == direct->steps);
    for (const RecordedTrace& t : sum->traces) fs::remove(t.path);
  }
}

TEST_CASE("threads: Debian's xz -T2 compresses with a worker thread, byte for byte as natively") {
  // 20 KB of words: below one block, xz -T2 still hands it to one worker
  // thread (main + 1), and the run stays near 25 M steps.
  const char* xz = "/usr/bin/xz";
  if (!fs::exists(xz)) return;
  const std::string dir = test::temp_trace("xz-dir");
  fs::create_directories(dir);
  const std::string input = dir + "/words.txt";
  {
    std::ofstream f(input, std::ios::binary);
    uint64_t x = 88172645463325252ull;
    for (size_t n = 0; n < 20000;) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      std::string w;
      for (int k = 0; k < 2 + int(x % 7); ++k) w.push_back(char('a' + (x >> (4 * k)) % 10));
      f << w << ' ';
      n += w.size() + 1;
    }
  }
  const std::string native = native_output(xz, "-T2 -c '" + input + "'");
  REQUIRE(native.size() > 100);
  const std::string out = test::temp_trace("xz");
  auto sum = record(options(xz, out, {"-T2", "-c", input}));
  REQUIRE_MESSAGE(sum.ok(), (sum.ok() ? "" : sum.error().to_string()));
  CHECK(sum->exited);
  CHECK(sum->exit_code == 0);
  CHECK_FALSE(sum->deadlock.has_value());
  for (const auto& u : sum->unsupported) FAIL_CHECK("unsupported syscall " << u.number << " " << u.name);
  CHECK(sum->captured_stdout == native);
  CHECK(sum->threads == 2);
  auto t = test::read_trace(out);
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().to_string()));
  CHECK(std::set<uint64_t>(t->tids.begin(), t->tids.end()) == std::set<uint64_t>{1, 2});
  CHECK(t->thread_begins == std::vector<uint64_t>{1, 2});
  fs::remove(out);
  fs::remove_all(dir);
}
