// New processes under the recorder (docs/recording.md, "Processes"):
// programs/processes.c forks, vforks and execs, posix_spawns, calls
// system() and popen(), kills and waits; a shell runs a pipeline. The
// recorded process's output and exit status equal the native run's (the
// children run natively or unrecorded and print to the host's stdout),
// the trace agrees with the emulator (verify) and reads back with the
// fork's result, the child's pid, in it.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "tests/recorder/recording_support.h"

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

const char* const kVariants[] = {"x86_64", "x86_64-glibc", "x86_64-dyn", "x86_64-nopie", "aarch64", "aarch64-dyn"};

// Records `prog mode` with LC_ALL=C (as run_native runs it), verified.
test::HostStdoutRun record_mode(const std::string& prog, const std::string& mode, const std::string& out) {
  RecordOptions o = test::capture_options({prog, mode}, out);
  o.env = {"LC_ALL=C"};
  o.verify = true;
  return test::record_with_host_stdout(o);
}

}  // namespace

TEST_CASE("processes: fork, vfork+execve, system, popen, kill+waitid, a crashing child, waitpid beside a thread and pidfds print what they print natively") {
  for (const char* variant : kVariants) {
    const std::string prog = test::program_path(variant, "processes");
    if (prog.empty()) continue;
    const std::string host = test::program_path("x86_64-dyn", "processes");
    for (const char* mode : {"fork", "vfork", "system", "popen", "kill", "crash", "thread-wait", "pidfd", "child-waits"}) {
      INFO(std::string(variant) << " " << mode);
      // AArch64's native output is the x86-64 build's (same libc family).
      const std::string native_prog = variant[0] == 'a' ? host : prog;
      if (native_prog.empty()) continue;
      const test::NativeRun native = test::run_native({native_prog, mode});
      const std::string out = test::temp_trace(std::string("processes-") + variant + "-" + mode);
      const test::HostStdoutRun run = record_mode(prog, mode, out);
      test::check_clean(run.sum);
      CHECK(run.sum.exit_code == native.status);
      CHECK(run.out == native.out);
      fs::remove(out);
    }
  }
}

TEST_CASE("processes: what Linux answers, whatever the recorder does") {
  const std::string prog = test::program_path("x86_64-dyn", "processes");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "fork"}).out ==
        "parent read 31 bytes: child says hello, ppid known 1\nwaited for the child: 1\nfork child: exited 7\n");
  CHECK(test::run_native({prog, "vfork"}).out == "echo from vfork\nvfork child: exited 0\n");
  CHECK(test::run_native({prog, "spawn"}).out ==
        "spawned echo\nposix_spawn /bin/echo: 0\nspawned echo: exited 0\nposix_spawn of a missing path: No such file or directory\n");
  CHECK(test::run_native({prog, "vfork-writes"}).out ==
        "after the vfork child: global 10, heap 20, stack 30\nwriting vfork child: exited 0\n");
  CHECK(test::run_native({prog, "system"}).out == "HI\nsystem: exited 0\n");
  CHECK(test::run_native({prog, "popen"}).out == "popen line: y\npopen line: x\npclose: exited 0\n");
  CHECK(test::run_native({prog, "crash"}).out == "crashing child: killed by signal 11\n");
  CHECK(test::run_native({prog, "thread-wait"}).out == "child got go\nchild released by a thread: exited 5\n");
  CHECK(test::run_native({prog, "child-waits"}).out ==
        "pausing child with a timer: killed by signal 14\nsleeping children wrote: fs\n");
  CHECK(test::run_native({prog, "pidfd"}).out ==
        "pidfd of itself: yes, ready while it runs: 0\npidfd_send_signal to itself: 0, handler ran: 1\n"
        "sigqueue to itself: 0, code -1 value 42\n"
        "its link: anon_inode:[pidfd]\n"
        "exiting child: ready 1 (POLLIN 1), waitid 0, pid same 1, code 1 status 7\n"
        "waiting child: pidfd_send_signal 0, waitid 0, pid same 1, code 2 status 15\n"
        "waitid of a closed pidfd: -1 Bad file descriptor\n");
}

TEST_CASE("processes: a write to a pipe whose reader exited is EPIPE, or SIGPIPE kills the recorded process (not the recorder)") {
  for (const char* variant : {"x86_64", "x86_64-dyn", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "processes");
    if (prog.empty()) continue;
    INFO(variant);
    const std::string out = test::temp_trace(std::string("processes-sigpipe-") + variant);
    const test::HostStdoutRun run = record_mode(prog, "sigpipe", out);
    CHECK(run.out == "write with SIGPIPE ignored: -1 Broken pipe\n");
    CHECK(run.sum.exited);
    CHECK(run.sum.signal == 13);
    CHECK(run.sum.exit_code == 128 + 13);
    CHECK(run.sum.unsupported.empty());
    CHECK(run.sum.verify_errors.empty());
    CHECK(test::read_trace(out).ok());
    fs::remove(out);
  }
}

TEST_CASE("processes: with capture_output, the recorded process is captured and a child prints to the recorder's stdout") {
  for (const char* variant : {"x86_64", "x86_64-dyn", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "processes");
    if (prog.empty()) continue;
    INFO(variant);
    const std::string out = test::temp_trace(std::string("processes-child-prints-") + variant);
    RecordOptions o = test::capture_options({prog, "child-prints"}, out);
    const test::HostStdoutRun run = test::record_with_host_stdout(o, /*capture_recorded=*/true);
    test::check_clean(run.sum);
    CHECK(run.out == "child prints\n");
    CHECK(run.sum.captured_stdout == "parent prints\n");
    fs::remove(out);
  }
}

TEST_CASE("processes: posix_spawn of a program, and of a missing path, and a vfork child's writes, as natively") {
  for (const char* variant : kVariants) {
    const std::string prog = test::program_path(variant, "processes");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    const std::string out = test::temp_trace(std::string("processes-spawn-") + variant);
    const test::HostStdoutRun run = record_mode(prog, "spawn", out);
    test::check_clean(run.sum);
    const std::string spawned = "spawned echo\nposix_spawn /bin/echo: 0\nspawned echo: exited 0\n";
    // musl's posix_spawn reports the exec failure through a pipe; glibc's
    // writes it into the memory CLONE_VM shares with the parent, which the
    // recorder's child (a host fork) sends back before it ends
    // (vfork_shared_memory.h). Before that, glibc's answer was 0 and a
    // child that exited 127.
    CHECK(run.out == spawned + "posix_spawn of a missing path: No such file or directory\n");
    fs::remove(out);
    // A plain vfork child's stores, the parent's stack among them.
    const std::string writes_out = test::temp_trace(std::string("processes-vfork-writes-") + variant);
    const test::HostStdoutRun writes = record_mode(prog, "vfork-writes", writes_out);
    test::check_clean(writes.sum);
    CHECK(writes.out == "after the vfork child: global 10, heap 20, stack 30\nwriting vfork child: exited 0\n");
    fs::remove(writes_out);
  }
}

TEST_CASE("processes: the trace has the fork returning the child's pid and reads back whole") {
  const std::string prog = test::program_path("x86_64-dyn", "processes");
  if (prog.empty()) return;
  const std::string out = test::temp_trace("processes-trace");
  const test::HostStdoutRun run = record_mode(prog, "fork", out);
  auto digest = test::read_trace(out);
  REQUIRE_MESSAGE(digest.ok(), test::error_text(digest));
  CHECK(digest->steps == run.sum.steps);
  // glibc's fork is clone(56) with SIGCHLD; its result is the child's pid
  // on the host, and wait4 (61) returns the same pid.
  uint64_t child = 0, waited = 0;
  for (const auto& s : digest->syscalls) {
    if (s.number == 56) child = s.ret;
    if (s.number == 61) waited = s.ret;
  }
  CHECK(int64_t(child) > 0);
  CHECK(waited == child);
  fs::remove(out);
}

TEST_CASE("processes: execve in the recorded process itself goes on in a second trace (test_exec.cpp), also with --strict") {
  const std::string prog = test::program_path("x86_64-dyn", "processes");
  if (prog.empty()) return;
  const std::string out = test::temp_trace("processes-exec");
  RecordOptions o = test::capture_options({prog, "exec"}, out);
  for (bool strict : {false, true}) {
    o.strict = strict;
    auto sum = record(o);
    REQUIRE(sum.ok());
    test::check_clean(*sum);
    CHECK(sum->captured_stdout == "");  // /bin/true
    CHECK(sum->exit_code == 0);
    REQUIRE(sum->traces.size() == 2);
    CHECK(sum->traces[1].program == "/bin/true");
    for (const RecordedTrace& t : sum->traces) fs::remove(t.path);
  }
}

TEST_CASE("processes: clone(CLONE_VM) without CLONE_VFORK (shared memory while both run) is refused by name") {
  const std::string prog = test::program_path("x86_64-dyn", "processes");
  if (prog.empty()) return;
  const std::string out = test::temp_trace("processes-clone-vm");
  auto sum = record(test::capture_options({prog, "clone-vm"}, out));
  REQUIRE(sum.ok());
  CHECK(sum->captured_stdout == "clone(CLONE_VM) without CLONE_VFORK: Function not implemented\n");
  REQUIRE(sum->unsupported.size() == 1);
  CHECK(sum->unsupported[0].name == "clone");
  fs::remove(out);
}

TEST_CASE("processes: a shell pipeline prints what it prints natively and exits with the shell's status") {
  test::TempDir dir("processes-sh");
  for (const char* name : {"b", "a", "c"}) std::ofstream(dir.file(name)) << name;
  const std::string script = "echo a; ls " + dir.path.string() + " | sort -r; exit 3";
  const test::NativeRun native = test::run_native({"/bin/sh", "-c", script});
  REQUIRE(native.out == "a\nc\nb\na\n");
  REQUIRE(native.status == 3);
  const std::string out = test::temp_trace("processes-sh");
  RecordOptions o = test::capture_options({"/bin/sh", "-c", script}, out);
  o.env = {"LC_ALL=C"};
  o.verify = true;
  const test::HostStdoutRun run = test::record_with_host_stdout(o);
  CHECK(run.out == native.out);
  CHECK(run.sum.exited);
  CHECK(run.sum.exit_code == 3);
  CHECK(run.sum.unsupported.empty());
  CHECK(run.sum.verify_errors.empty());
  fs::remove(out);
}
