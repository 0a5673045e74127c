#include "tests/recorder/recording_support.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include <fstream>
#include <iterator>

namespace ttd::rec::test {

RecordOptions capture_options(const std::vector<std::string>& argv, const std::string& out) {
  RecordOptions o;
  o.output = out;
  o.argv = argv;
  o.capture_output = true;
  o.stdin_data = "";
  return o;
}

void check_clean(const RecordSummary& s) {
  CHECK(s.exited);
  CHECK_MESSAGE(!s.fault.has_value(), (s.fault ? *s.fault : ""));
  for (const auto& u : s.unsupported) FAIL_CHECK("unsupported syscall " << u.number << " " << u.name);
  for (const auto& e : s.verify_errors) FAIL_CHECK(e);
  CHECK(s.verify_register_misses == 0);
}

RecordOptions threaded_options(const std::string& prog, const std::string& out, std::vector<std::string> args) {
  args.insert(args.begin(), prog);
  RecordOptions o = capture_options(args, out);
  o.quantum = 5000;
  return o;
}

std::string deadlock_report(const RecordOptions& o) {
  auto sum = record(o);
  REQUIRE_MESSAGE(sum.ok(), error_text(sum));
  REQUIRE(sum->deadlock.has_value());
  CHECK(sum->unsupported.empty());
  return *sum->deadlock;
}

void check_records_identically(RecordOptions o, const std::string& first, const std::string& again) {
  o.output = again;
  o.verify = true;
  REQUIRE(record(o).ok());
  CHECK(file_text(first) == file_text(again));
  std::filesystem::remove(again);
}

RecordSummary check_records_like_native(RecordOptions o, const std::string& native) {
  o.verify = true;
  auto sum = record(o);
  REQUIRE_MESSAGE(sum.ok(), error_text(sum));
  check_clean(*sum);
  CHECK(sum->exit_code == 0);
  CHECK_FALSE(sum->deadlock.has_value());
  CHECK(sum->captured_stdout == native);
  return *sum;
}

void check_child_like_native(const char* program, const char* mode, const char* variant) {
  CAPTURE(variant);
  const std::string prog = program_path(variant, program);
  if (prog.empty()) return;
  RecordOptions o =
      capture_options({prog, mode}, temp_trace(std::string(program) + "-child"));
  o.env = {"LC_ALL=C"};
  const auto run = record_with_host_stdout(o);
  CHECK(run.out == run_native({prog, mode}).out);
  std::filesystem::remove(o.output);
}

void check_mode_like_native(const char* program, const char* mode, std::initializer_list<const char*> variants,
                            const std::string& arg, std::vector<int> inherit_fds) {
  const std::string glibc_prog = program_path("x86_64-dyn", program);
  if (glibc_prog.empty()) return;
  auto argv = [&](const std::string& prog) {
    std::vector<std::string> v{prog, mode};
    if (!arg.empty()) v.push_back(arg);
    return v;
  };
  const NativeRun glibc_native = run_native(argv(glibc_prog));
  REQUIRE(glibc_native.status == 0);
  int ran = 0;
  for (const char* variant : variants) {
    const std::string prog = program_path(variant, program);
    if (prog.empty()) continue;
    INFO(program << " " << variant << " " << mode);
    const std::string native = variant[0] == 'a' ? glibc_native.out : run_native(argv(prog)).out;
    const std::string out = temp_trace(std::string(program) + "-" + variant + "-" + mode);
    RecordOptions o = capture_options(argv(prog), out);
    o.env = {"LC_ALL=C"};
    o.inherit_fds = inherit_fds;
    check_records_like_native(o, native);
    std::filesystem::remove(out);
    ++ran;
  }
  CHECK(ran > 0);
}

HostStdoutRun record_with_host_stdout(RecordOptions o, bool capture_recorded) {
  o.capture_output = capture_recorded;
  const std::string path = temp_trace("host-stdout");
  std::fflush(stdout);
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(file >= 0);
  const int saved = ::dup(1);
  ::dup2(file, 1);
  ::close(file);
  auto sum = record(o);
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  HostStdoutRun run;
  run.out = file_text(path);
  std::filesystem::remove(path);
  REQUIRE_MESSAGE(sum.ok(), error_text(sum));
  run.sum = *sum;
  return run;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TempDir::TempDir(const std::string& tag) : path(temp_trace(tag + "-dir")) {
  std::filesystem::create_directories(path);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

}  // namespace ttd::rec::test
