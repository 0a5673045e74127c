// The recorder's Linux emulation, through the probe program: supported
// syscalls answer like Linux and their kernel effects are in the trace;
// unsupported ones are reported; faults and fatal signals end the run.
#include <doctest/doctest.h>

#include <sys/utsname.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/recorder.h"
#include "tools/recorder/syscall_table.h"

// A namespace of its own: CI's unity build compiles it with its suite's other files.
namespace test_syscalls {

using namespace ttd;
using namespace ttd::rec;

namespace {

struct Numbers {
  const char* arch;
  uint64_t read, uname, getrandom, mmap, munmap, exit_group;
};
const Numbers kArches[] = {{"x86_64", 0, 63, 318, 9, 11, 231}, {"aarch64", 63, 160, 278, 222, 215, 94}};

Result<RecordSummary> run_probe(const Numbers& n, std::vector<std::string> args, const std::string& out) {
  args.insert(args.begin(), test::probe_path(n.arch));
  RecordOptions o = test::capture_options(args, out);
  o.env = {"LANG=C"};
  o.stdin_data = "hello";
  o.verify = true;
  return record(o);
}

const test::SyscallRecord* find_syscall(const test::TraceDigest& d, uint64_t number) {
  for (const auto& s : d.syscalls)
    if (s.number == number) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("probe: syscalls, stdin, stdout/stderr capture, unsupported syscalls") {
  for (const Numbers& n : kArches) {
    if (test::probe_path(n.arch).empty()) continue;
    INFO(n.arch);
    std::string out = test::temp_trace("probe");
    auto sum = run_probe(n, {}, out);
    REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
    CHECK(sum->exited);
    CHECK(sum->exit_code == 42);
    // The host's node name and release, as the program would see natively.
    struct utsname host {};
    REQUIRE(::uname(&host) == 0);
    std::string expect = std::string("syscall999 -1\nuname Linux ") + n.arch + "\nnode " + host.nodename +
                         " release " + host.release + "\npid 4242\nclock 1\ngetrandom 8\nmmap 7\nheap\nstdin 5 hello\n";
    CHECK(sum->captured_stdout == expect);
    CHECK(sum->captured_stderr == "to stderr\n");
    REQUIRE(sum->unsupported.size() == 1);
    CHECK(sum->unsupported[0].number == 999);
    CHECK(sum->unsupported[0].name == "unknown");
    CHECK(sum->unsupported[0].count == 2);
    CHECK(describe(*sum).find("unsupported syscall 999 (unknown) called 2 times") != std::string::npos);
    for (const auto& e : sum->verify_errors) FAIL_CHECK(e);
    CHECK(sum->verify_register_misses == 0);

    auto trace = test::read_trace(out);
    REQUIRE_MESSAGE(trace.ok(), test::error_text(trace));
    // The unsupported call is in the trace with -ENOSYS as its result.
    const auto* bad = find_syscall(*trace, 999);
    REQUIRE(bad);
    CHECK(int64_t(bad->ret) == -38);
    // Kernel writes into guest memory travel with their syscall.
    const auto* uname = find_syscall(*trace, n.uname);
    REQUIRE(uname);
    CHECK(uname->ret == 0);
    CHECK(uname->mem_writes >= 1);
    const auto* rnd = find_syscall(*trace, n.getrandom);
    REQUIRE(rnd);
    CHECK(rnd->ret == 8);
    CHECK(rnd->mem_writes >= 1);
    const test::SyscallRecord* rd = nullptr;
    for (const auto& s : trace->syscalls)
      if (s.number == n.read && s.args[0] == 0) rd = &s;
    REQUIRE(rd);
    CHECK(rd->ret == 5);
    CHECK(rd->mem_writes == 1);
    const auto* mm = find_syscall(*trace, n.mmap);
    REQUIRE(mm);
    CHECK(mm->args[1] >= (1u << 20));
    CHECK(find_syscall(*trace, n.munmap));
    CHECK(trace->syscalls.back().number == n.exit_group);
    std::filesystem::remove(out);
  }
}

TEST_CASE("probe crash: an emulator fault ends the trace and names the pc") {
  for (const Numbers& n : kArches) {
    if (test::probe_path(n.arch).empty()) continue;
    INFO(n.arch);
    std::string out = test::temp_trace("crash");
    auto sum = run_probe(n, {"crash"}, out);
    REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
    REQUIRE(sum->fault.has_value());
    CHECK(sum->fault->find("at pc 0x") != std::string::npos);
    CHECK(sum->fault->find("address 0x10") != std::string::npos);
    CHECK(sum->signal == 11);
    CHECK(sum->exit_code == 139);
    auto trace = test::read_trace(out);
    REQUIRE(trace.ok());
    // The trace ends with the last instruction that completed.
    CHECK(trace->steps == sum->steps);
    CHECK_FALSE(trace->thread_ended);
    std::filesystem::remove(out);
  }
}

TEST_CASE("probe abort: a fatal signal to itself ends the process") {
  for (const Numbers& n : kArches) {
    if (test::probe_path(n.arch).empty()) continue;
    INFO(n.arch);
    std::string out = test::temp_trace("abort");
    auto sum = run_probe(n, {"abort"}, out);
    REQUIRE(sum.ok());
    CHECK(sum->exited);
    CHECK(sum->signal == 6);
    CHECK(sum->exit_code == 134);
    CHECK_FALSE(sum->fault.has_value());
    CHECK(describe(*sum).find("killed by signal 6") != std::string::npos);
    std::filesystem::remove(out);
  }
}

TEST_CASE("recording is deterministic: the same program gives the same trace") {
  for (const Numbers& n : kArches) {
    if (test::probe_path(n.arch).empty()) continue;
    INFO(n.arch);
    std::string a = test::temp_trace("det-a"), b = test::temp_trace("det-b");
    REQUIRE(run_probe(n, {}, a).ok());
    REQUIRE(run_probe(n, {}, b).ok());
    CHECK(test::file_text(a) == test::file_text(b));
    std::filesystem::remove(a);
    std::filesystem::remove(b);
  }
}

TEST_CASE("GLIBC_TUNABLES in the environment of a static glibc program (the stack's end marker)") {
  // Static glibc reads GLIBC_TUNABLES while parsing the environment, before
  // anything else; with the exec file name's string against the end of the
  // stack mapping it read past it and faulted (UC_ERR_READ_UNMAPPED).
  for (const char* variant : {"x86_64-glibc", "aarch64"}) {
    std::string prog = test::program_path(variant, "probe");
    if (prog.empty()) continue;
    INFO(std::string(variant));
    RecordOptions o = test::capture_options({prog}, test::temp_trace("tunables"));
    o.env = {"LANG=C", "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2"};
    o.stdin_data = "hello";
    auto sum = record(o);
    REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));
    CHECK_MESSAGE(!sum->fault.has_value(), (sum->fault ? *sum->fault : ""));
    CHECK(sum->exited);
    CHECK(sum->exit_code == 42);
    CHECK(sum->captured_stdout.find("stdin 5 hello\n") != std::string::npos);
    std::filesystem::remove(o.output);
  }
}

TEST_CASE("--strict stops at the first unsupported syscall, names it and leaves no trace") {
  for (const Numbers& n : kArches) {
    if (test::probe_path(n.arch).empty()) continue;
    INFO(n.arch);
    RecordOptions o = test::capture_options({test::probe_path(n.arch)}, test::temp_trace("strict"));
    o.strict = true;
    auto sum = record(o);
    REQUIRE_FALSE(sum.ok());
    std::string e = sum.error().to_string();
    CHECK(e.find("unsupported syscall 999 (unknown)") != std::string::npos);
    CHECK(e.find("--strict") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(o.output));
  }
}

TEST_CASE("an unsupported syscall is named from Linux's list, and the process-group calls are answered") {
  // Names of calls the recorder does not answer come from the kernel's
  // list (a report said "syscall 52 (unknown)" for bash's getpeername).
  CHECK(syscall_table_x86_64().lookup(165).name == "mount");
  CHECK(syscall_table_x86_64().lookup(165).sys == Sys::Unsupported);
  CHECK(syscall_table_aarch64().lookup(40).name == "mount");
  CHECK(syscall_table_aarch64().lookup(79).name == "newfstatat");
  CHECK(syscall_table_x86_64().lookup(999).name == "unknown");
  CHECK(syscall_table_x86_64().lookup(52).sys == Sys::Getpeername);
  CHECK(syscall_table_x86_64().lookup(111).sys == Sys::Getpgrp);
  CHECK(syscall_table_aarch64().lookup(155).sys == Sys::Getpgid);
}

}  // namespace test_syscalls
