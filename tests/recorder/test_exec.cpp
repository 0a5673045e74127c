// execve of the recorded process, and --follow-fork (docs/recording.md,
// "execve and --follow-fork"): `sh -c 'exec prog ...'` records sh into the
// first trace and prog into OUT.1; what prog prints, its exit status and
// what execve keeps (descriptors, umask, cwd, signal dispositions, mask,
// pid) are the native run's; a failing exec returns its error and the
// program goes on; a `#!` script runs its interpreter; with follow_fork
// each child of a shell is a trace of its own.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/recording_chain.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_exec {

using namespace ttd;
using namespace ttd::rec;
namespace fs = std::filesystem;

namespace {

const char* const kVariants[] = {"x86_64", "x86_64-dyn", "x86_64-glibc", "aarch64", "aarch64-dyn"};

std::string quoted(const std::string& s) { return "'" + s + "'"; }

RecordOptions shell_options(const std::string& script, const std::string& out) {
  RecordOptions o = test::capture_options({"/bin/sh", "-c", script}, out);
  o.env = {"LC_ALL=C"};
  return o;
}

void remove_chain(const RecordSummary& s) {
  for (const RecordedTrace& t : s.traces) fs::remove(t.path);
}

// The x86-64 build prints what an AArch64 one would (same C library family).
std::string native_of(const std::string& variant, const std::string& prog) {
  return variant[0] == 'a' ? test::program_path("x86_64-dyn", "exec_chain") : prog;
}

}  // namespace

TEST_CASE("exec chain: trace names put the number before the extension") {
  CHECK(chain_trace_name("/t/out.ucir", 0) == "/t/out.ucir");
  CHECK(chain_trace_name("/t/out.ucir", 2) == "/t/out.2.ucir");
  CHECK(chain_trace_name("/t.d/out", 1) == "/t.d/out.1");
  CHECK(child_trace_name("/t/out.ucir", 31337) == "/t/out.31337.ucir");
  CHECK(chain_trace_name(child_trace_name("out.ucir", 77), 1) == "out.77.1.ucir");
}

TEST_CASE("exec chain: sh -c 'exec prog' records prog in a second trace, output and exit status as natively") {
  if (!fs::exists("/bin/sh")) return;
  for (const char* variant : kVariants) {
    const std::string prog = test::program_path(variant, "exec_chain");
    if (prog.empty()) continue;
    INFO(variant);
    const test::NativeRun native = test::run_native({native_of(variant, prog), "hello", "a", "b c"});
    const std::string out = test::temp_trace(std::string("exec-sh-") + variant + ".ucir");
    RecordOptions o = shell_options("exec " + quoted(prog) + " hello a 'b c'", out);
    o.verify = true;
    std::vector<std::string> notices;
    o.notice = [&](const std::string& l) { notices.push_back(l); };
    auto sum = record(o);
    REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
    test::check_clean(*sum);
    CHECK(sum->captured_stdout == native.out);
    CHECK(sum->exit_code == 5);
    CHECK(native.status == 5);
    REQUIRE(sum->traces.size() == 2);
    CHECK(sum->traces[0].path == out);
    CHECK(sum->traces[0].program == "/bin/sh");
    CHECK(sum->traces[1].path == chain_trace_name(out, 1));
    CHECK(sum->traces[1].program == prog);
    CHECK(sum->steps == sum->traces[1].steps);
    REQUIRE(notices.size() == 1);
    CHECK(notices[0] == "execve " + prog + ": recording goes on in " + chain_trace_name(out, 1));
    // Each trace reads alone: sh's ends in its execve (OP_EXIT), prog's
    // starts at its own loader and names prog.
    auto first = test::read_trace(out);
    REQUIRE_MESSAGE(first.ok(), test::error_text(first));
    REQUIRE_FALSE(first->syscalls.empty());
    CHECK(first->syscalls.back().number == 59u);  // execve: sh is the host's x86-64 dash for every variant
    CHECK(first->steps == sum->traces[0].steps);
    auto second = test::read_trace(chain_trace_name(out, 1));
    REQUIRE_MESSAGE(second.ok(), test::error_text(second));
    CHECK(second->steps == sum->traces[1].steps);
    CHECK(second->arch == (variant[0] == 'a' ? "aarch64" : "x86_64"));
    remove_chain(*sum);
  }
}

TEST_CASE("exec chain: a failing exec returns ENOENT, EACCES or ENOEXEC and the program goes on, as natively") {
  test::TempDir dir("exec-fail");
  const std::string text = dir.file("not-elf");
  { std::ofstream(text) << "just text, no #! line\n"; }
  ::chmod(text.c_str(), 0755);
  const std::string unreadable_dir = dir.file("a-directory");
  fs::create_directory(unreadable_dir);
  for (const char* variant : {"x86_64", "x86_64-dyn", "aarch64"}) {
    const std::string prog = test::program_path(variant, "exec_chain");
    if (prog.empty()) continue;
    INFO(variant);
    const std::vector<std::string> tries = {"/nonexistent/prog", "/etc/passwd", text, unreadable_dir};
    std::vector<std::string> argv = {prog, "try"};
    argv.insert(argv.end(), tries.begin(), tries.end());
    std::vector<std::string> native_argv = argv;
    native_argv[0] = native_of(variant, prog);
    const test::NativeRun native = test::run_native(native_argv);
    CHECK(native.out ==
          "exec /nonexistent/prog: No such file or directory\nexec /etc/passwd: Permission denied\nexec " + text +
              ": Exec format error\nexec " + unreadable_dir + ": Permission denied\nwent on\n");
    const std::string out = test::temp_trace(std::string("exec-fail-") + variant + ".ucir");
    RecordOptions o = test::capture_options(argv, out);
    o.env = {"LC_ALL=C"};
    auto sum = record(o);
    REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
    test::check_clean(*sum);
    CHECK(sum->captured_stdout == native.out);
    CHECK(sum->exit_code == 3);
    CHECK(sum->traces.size() == 1);
    CHECK_FALSE(fs::exists(chain_trace_name(out, 1)));
    remove_chain(*sum);

    // The last try succeeds: the chain goes on there.
    argv.push_back(prog);
    native_argv.push_back(native_of(variant, prog));
    const test::NativeRun native_ok = test::run_native(native_argv);
    RecordOptions ok = test::capture_options(argv, out);
    ok.env = {"LC_ALL=C"};
    auto chained = record(ok);
    REQUIRE_MESSAGE(chained.ok(), test::error_text(chained));
    CHECK(chained->captured_stdout == native_ok.out);
    CHECK(chained->exit_code == 5);
    CHECK(chained->traces.size() == 2);
    remove_chain(*chained);
  }
}

TEST_CASE("exec chain: a #! script runs its interpreter with its argument and the script's path") {
  test::TempDir dir("exec-script");
  for (const char* variant : {"x86_64", "x86_64-dyn"}) {
    const std::string prog = test::program_path(variant, "exec_chain");
    if (prog.empty()) continue;
    INFO(variant);
    const std::string script = dir.file(std::string("script-") + variant);
    { std::ofstream(script) << "#!" << prog << " hello  \nnot run\n"; }
    ::chmod(script.c_str(), 0755);
    const test::NativeRun native = test::run_native({prog, "try", script});
    CHECK(native.out == "hello from exec_chain: " + script + " hello tried\n");
    const std::string out = test::temp_trace(std::string("exec-script-") + variant + ".ucir");
    RecordOptions o = test::capture_options({prog, "try", script}, out);
    o.env = {"LC_ALL=C"};
    auto sum = record(o);
    REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
    test::check_clean(*sum);
    CHECK(sum->captured_stdout == native.out);
    CHECK(sum->exit_code == 5);
    REQUIRE(sum->traces.size() == 2);
    CHECK(sum->traces[1].program == prog);
    remove_chain(*sum);
  }
}

TEST_CASE("exec chain: execve keeps fds without O_CLOEXEC, umask, cwd, ignored signals, the mask and the pid") {
  for (const char* variant : {"x86_64", "x86_64-dyn", "aarch64-dyn"}) {
    const std::string prog = test::program_path(variant, "exec_chain");
    if (prog.empty()) continue;
    for (const char* mode : {"fds", "state"}) {
      INFO(variant << " " << mode);
      const test::NativeRun native = test::run_native({native_of(variant, prog), mode});
      const std::string out = test::temp_trace(std::string("exec-keeps-") + variant + "-" + mode + ".ucir");
      RecordOptions o = test::capture_options({prog, mode}, out);
      o.env = {"LC_ALL=C"};
      o.verify = true;
      auto sum = record(o);
      REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
      test::check_clean(*sum);
      CHECK(sum->captured_stdout == native.out);
      CHECK(sum->traces.size() == 2);
      remove_chain(*sum);
    }
  }
  const std::string prog = test::program_path("x86_64-dyn", "exec_chain");
  if (prog.empty()) return;
  CHECK(test::run_native({prog, "fds"}).out == "fd 5: open\nfd 6: closed\n");
  CHECK(test::run_native({prog, "state"}).out ==
        "pid kept: yes\numask: 027\ncwd: /tmp\nSIGUSR1 ignored: yes\nSIGUSR2 default: yes\nSIGHUP blocked: yes\n");
}

TEST_CASE("follow_fork: sh -c with two programs gives a trace per child, each with its program's run") {
  if (!fs::exists("/bin/sh")) return;
  for (const char* variant : {"x86_64", "x86_64-dyn"}) {
    const std::string prog = test::program_path(variant, "exec_chain");
    if (prog.empty()) continue;
    INFO(variant);
    test::TempDir dir(std::string("follow-fork-") + variant);
    const std::string out = dir.file("sh.ucir");
    const std::string script = quoted(prog) + " hello one; " + quoted(prog) + " hello two; echo done";
    const test::NativeRun native = test::run_shell("env -i LC_ALL=C /bin/sh -c \"" + script + "\"");
    RecordOptions o = shell_options(script, out);
    o.follow_fork = true;
    std::vector<std::string> notices;
    o.notice = [&](const std::string& l) { notices.push_back(l); };
    const test::HostStdoutRun run = test::record_with_host_stdout(o);
    test::check_clean(run.sum);
    CHECK(run.out == native.out);
    CHECK(run.out == "hello from exec_chain: one\nhello from exec_chain: two\ndone\n");
    CHECK(run.sum.exit_code == 0);
    CHECK(run.sum.traces.size() == 1);
    // sh.ucir, and per child sh.PID.ucir (the fork's copy of sh until its
    // execve) and sh.PID.1.ucir (prog).
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir.path)) files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    INFO(files.size());
    REQUIRE(files.size() == 5);
    int progs = 0;
    for (const std::string& f : files) {
      auto d = test::read_trace(dir.file(f));
      REQUIRE_MESSAGE(d.ok(), f << ": " << test::error_text(d));
      CHECK(d->steps > 0);
      if (f.size() > 7 && f.substr(f.size() - 7) == ".1.ucir") ++progs;
    }
    CHECK(progs == 2);
  }
}

TEST_CASE("follow_fork: fork, vfork+execve, system, popen, posix_spawn, kill and a crashing child print as natively") {
  for (const char* variant : {"x86_64", "x86_64-dyn"}) {
    const std::string prog = test::program_path(variant, "processes");
    if (prog.empty()) continue;
    for (const char* mode : {"fork", "vfork", "system", "popen", "kill", "crash", "spawn"}) {
      const std::string label = std::string(variant) + " " + mode;
      INFO(label);
      // glibc's posix_spawn of a missing path differs (test_processes.cpp)
      if (std::string(mode) == "spawn" && std::string(variant) != "x86_64") continue;
      const test::NativeRun native = test::run_native({prog, mode});
      test::TempDir dir(std::string("follow-fork-processes-") + variant + "-" + mode);
      RecordOptions o = test::capture_options({prog, mode}, dir.file("p.ucir"));
      o.env = {"LC_ALL=C"};
      o.follow_fork = true;
      o.notice = [](const std::string&) {};
      const test::HostStdoutRun run = test::record_with_host_stdout(o);
      test::check_clean(run.sum);
      CHECK(run.sum.exit_code == native.status);
      CHECK(run.out == native.out);
      size_t traces = 0;
      for (const auto& e : fs::directory_iterator(dir.path)) {
        ++traces;
        // A child killed by another process's signal ends its trace
        // complete (docs/recording.md, "Stopping a recording").
        auto d = test::read_trace(e.path().string());
        CHECK_MESSAGE(d.ok(), e.path().string() << ": " << test::error_text(d));
      }
      // The parent's and at least one child's; a child the parent kills
      // may die before its recorder has created its trace.
      if (std::string(mode) != "kill") CHECK(traces >= 2);
    }
  }
}

}  // namespace test_exec
