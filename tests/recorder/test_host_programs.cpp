// Programs that use the host's files, and dynamically linked programs
// (Debian's own coreutils among them): recorded, they print what they print
// natively, and the trace is deterministic.
#include <doctest/doctest.h>
#include <sys/wait.h>

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

using test::check_clean;
using test::NativeRun;
using test::run_native;
using test::TempDir;

Result<RecordSummary> record_capture(const std::vector<std::string>& argv, const std::string& out,
                                     bool verify = false) {
  RecordOptions o = test::capture_options(argv, out);
  o.env = {"LC_ALL=C"};
  o.verify = verify;
  return record(o);
}

// Words in a fixed pseudo-random order.
std::string word_list(size_t lines) {
  std::string text;
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < lines; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    for (int k = 0; k < 3 + int(x % 9); ++k) text.push_back(char('a' + (x >> (5 * k)) % 26));
    text.push_back('\n');
  }
  return text;
}

}  // namespace

TEST_CASE("files: opening, reading, mapping and listing host files, static and dynamic") {
  // The expected lines are a native run's (the dynamically linked build).
  std::string native_prog = test::program_path("x86_64-dyn", "files");
  if (native_prog.empty()) return;
  TempDir dir("files");
  std::ofstream(dir.file("data.txt")) << "0123456789abcdef\n";
  fs::create_directory(dir.path / "sub");
  std::string dir_path = fs::canonical(dir.path).string();
  NativeRun native = run_native({native_prog, dir_path});
  REQUIRE(native.status == 0);
  REQUIRE(native.out.find("getcwd 1\nopen 1\nread 5 01234\n") == 0);
  CHECK(native.out.find("mmap 1 cdef\n") != std::string::npos);
  CHECK(native.out.find("close_range cloexec 0: 0 1 1\nclose_range 0: 1 0 0\nclose_range 5..3 -1 22\n") !=
        std::string::npos);

  for (const char* variant : {"x86_64", "x86_64-glibc", "x86_64-dyn", "x86_64-nopie", "aarch64", "aarch64-dyn"}) {
    std::string prog = test::program_path(variant, "files");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    std::string out = test::temp_trace(std::string("files-") + variant);
    auto sum = record_capture({prog, dir_path}, out, /*verify=*/true);
    REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
    check_clean(*sum);
    CHECK(sum->exit_code == 0);
    CHECK(sum->captured_stdout == native.out);
    CHECK(sum->captured_stderr == "");
    CHECK_FALSE(fs::exists(dir.file("out.txt")));  // the guest's unlink reached the host
    if (std::string(variant) == "x86_64") {
      // No time stamp counter in a static musl program: host files and
      // all, the same run gives the same trace bytes.
      std::string again = test::temp_trace("files-again");
      REQUIRE(record_capture({prog, dir_path}, again, /*verify=*/true).ok());
      CHECK(test::file_text(out) == test::file_text(again));
      fs::remove(again);
    }
    fs::remove(out);
  }
}

TEST_CASE("Debian's dynamically linked sort and sha256sum print what they print natively") {
  for (const char* tool : {"/usr/bin/sort", "/usr/bin/sha256sum"}) {
    if (!fs::exists(tool)) continue;
    INFO(std::string(tool));
    TempDir dir("coreutils");
    std::string words = dir.file("words.txt");
    std::ofstream(words) << word_list(2000);
    NativeRun native = run_native({tool, words});
    REQUIRE(native.status == 0);
    REQUIRE(native.out.size() > 10);

    std::string out = test::temp_trace("coreutils");
    auto sum = record_capture({tool, words}, out);
    REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
    check_clean(*sum);
    CHECK(sum->exit_code == native.status);
    CHECK(sum->captured_stdout == native.out);
    CHECK(sum->captured_stderr == "");

    auto trace = test::read_trace(out);
    REQUIRE_MESSAGE(trace.ok(), test::error_text(trace));
    CHECK(trace->arch == "x86_64");
    CHECK(trace->steps == sum->steps);
    CHECK(trace->thread_ended);

    // Recording again runs the same syscalls (and, with the virtual time
    // stamp counter, writes the same bytes: test_threads.cpp checks that).
    std::string again = test::temp_trace("coreutils-again");
    auto sum2 = record_capture({tool, words}, again);
    REQUIRE(sum2.ok());
    CHECK(sum2->captured_stdout == sum->captured_stdout);
    auto trace2 = test::read_trace(again);
    REQUIRE(trace2.ok());
    CHECK(trace2->steps == trace->steps);
    REQUIRE(trace2->syscalls.size() == trace->syscalls.size());
    for (size_t i = 0; i < trace->syscalls.size(); ++i) {
      CHECK(trace2->syscalls[i].number == trace->syscalls[i].number);
      CHECK(trace2->syscalls[i].mem_writes == trace->syscalls[i].mem_writes);
    }
    fs::remove(out);
    fs::remove(again);
  }
}

TEST_CASE("a program and files named by relative paths are named absolutely in the trace") {
  // Readers take only absolute mapping names (a relative one depends on
  // the directory the reader runs in): a dynamically linked program run as
  // ./prog was named by its interpreter, and gdb loaded ld.so's symbols as
  // the program's. files.c maps data.txt, opened relative to its cwd.
  std::string prog = test::program_path("x86_64-dyn", "files");
  if (prog.empty()) return;
  TempDir dir("relative-names");
  std::ofstream(dir.file("data.txt")) << "0123456789abcdef\n";
  fs::create_directory(dir.path / "sub");
  const std::string dir_path = fs::canonical(dir.path).string();
  const std::string rel = fs::relative(prog, fs::current_path()).string();
  REQUIRE(rel[0] != '/');
  std::string out = test::temp_trace("relative-names");
  auto sum = record_capture({rel, dir_path}, out);
  REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
  CHECK(sum->exit_code == 0);
  auto trace = test::read_trace(out);
  REQUIRE_MESSAGE(trace.ok(), test::error_text(trace));
  CHECK(trace->exec_path == fs::absolute(prog).lexically_normal().string());
  bool data_mapped = false;
  for (const std::string& name : trace->map_names) {
    INFO(name);
    CHECK((name.empty() || name[0] == '/' || name[0] == '['));
    data_mapped = data_mapped || name == dir_path + "/data.txt";
  }
  CHECK(data_mapped);
  fs::remove(out);
}

TEST_CASE("a missing file is the program's error, as natively") {
  if (!fs::exists("/usr/bin/sha256sum")) return;
  std::string out = test::temp_trace("missing");
  auto sum = record_capture({"/usr/bin/sha256sum", "/nonexistent/ttd-input.txt"}, out);
  REQUIRE(sum.ok());
  CHECK(sum->exit_code == 1);
  CHECK(sum->captured_stderr == "/usr/bin/sha256sum: /nonexistent/ttd-input.txt: No such file or directory\n");
  fs::remove(out);
}

TEST_CASE("python3 runs a script that reads a file, as natively") {
  // -S -E: no site packages, no PYTHON* variables: 20 M steps rather than 46 M.
  if (!fs::exists("/usr/bin/python3")) return;
  TempDir dir("python");
  std::string script = dir.file("count.py"), data = dir.file("data.txt");
  std::ofstream(data) << word_list(300);
  std::ofstream(script) << "import sys\nwords = open(sys.argv[1]).read().split()\n"
                           "print(len(words), sorted(words)[0], max(len(w) for w in words))\n";
  NativeRun native = run_native({"/usr/bin/python3", "-S", "-E", script, data});
  REQUIRE(native.status == 0);
  std::string out = test::temp_trace("python");
  auto sum = record_capture({"/usr/bin/python3", "-S", "-E", script, data}, out);
  REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
  CHECK(sum->exited);
  CHECK_FALSE(sum->fault.has_value());
  CHECK(sum->exit_code == 0);
  CHECK(sum->captured_stdout == native.out);
  CHECK(sum->captured_stderr == "");
  fs::remove(out);
}
