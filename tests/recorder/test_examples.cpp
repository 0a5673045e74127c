// Records every example on x86-64 and aarch64 and checks the program's
// behaviour, the live state handed to on_step, the self-check, and the
// trace as the UCIR reader sees it.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/recorder/recording_support.h"
#include "tools/recorder/recorder.h"

using namespace ttd;
using namespace ttd::rec;

namespace {

struct Expect {
  const char* name;
  std::vector<std::string> args;
  int exit_code;
  const char* stdout_text;
};

const Expect kExamples[] = {
    {"linked_list", {}, 1,
     "inventory:\n  pears        0\n  cherries    30\n  apples      10\ntotal 40 (expected 80)\n"},
    {"overrun", {}, 1, "account 7: Bartholo... balance 7824749 (expected 1000)\n"},
    {"recursion", {}, 0, "fib(10) = 89\ndepth sum = 84\n"},
    {"loop", {"1000"}, 0, "counter 1000 checksum 223360\n"},
};

// Linux syscall numbers the checks look for.
struct ArchSyscalls {
  const char* arch;
  uint64_t exit_group, write, writev;
};
const ArchSyscalls kArches[] = {{"x86_64", 231, 1, 20}, {"aarch64", 94, 64, 66}};

void record_example(const ArchSyscalls& arch, const Expect& ex) {
  std::string prog = test::example_path(arch.arch, ex.name);
  if (prog.empty()) {
    MESSAGE("skipping " << arch.arch << "/" << ex.name << " (not built)");
    return;
  }
  INFO(arch.arch << "/" << ex.name);
  std::vector<std::string> argv{prog};
  argv.insert(argv.end(), ex.args.begin(), ex.args.end());
  RecordOptions o = test::capture_options(argv, test::temp_trace(std::string(arch.arch) + "-" + ex.name));
  o.verify = true;
  std::vector<uint64_t> live_pcs;
  uint64_t bad_eid = 0, bad_pc = 0;
  o.on_step = [&](uint64_t eid, const LiveState& s) {
    if (eid != live_pcs.size()) ++bad_eid;
    // The emulator's own pc register agrees with the instruction about to run.
    if (s.registers().get_u64(s.arch().pc_index) != s.pc()) ++bad_pc;
    live_pcs.push_back(s.pc());
  };
  auto sum = record(o);
  REQUIRE_MESSAGE(sum.ok(), test::error_text(sum));

  CHECK(sum->exited);
  CHECK_FALSE(sum->fault.has_value());
  CHECK(sum->exit_code == ex.exit_code);
  CHECK(sum->captured_stdout == ex.stdout_text);
  CHECK(sum->captured_stderr == "");
  CHECK(sum->unsupported.empty());
  CHECK(sum->steps > 1000);
  CHECK(sum->steps == live_pcs.size());
  CHECK(bad_eid == 0);
  CHECK(bad_pc == 0);
  // Self-check: every register and memory byte the trace implies equals
  // the emulator's, and the per-pc register sets missed nothing.
  for (const auto& e : sum->verify_errors) FAIL_CHECK(e);
  CHECK(sum->verify_register_mismatches == 0);
  CHECK(sum->verify_memory_mismatches == 0);
  CHECK(sum->verify_register_misses == 0);

  auto trace = test::read_trace(o.output);
  REQUIRE_MESSAGE(trace.ok(), test::error_text(trace));
  CHECK(trace->arch == arch.arch);
  CHECK(trace->steps == sum->steps);
  CHECK(trace->pcs == live_pcs);
  CHECK(trace->syscalls.size() == sum->syscalls);
  CHECK(trace->thread_ended);
  REQUIRE_FALSE(trace->syscalls.empty());
  const auto& last = trace->syscalls.back();
  CHECK(last.number == arch.exit_group);
  REQUIRE_FALSE(last.args.empty());
  CHECK(last.args[0] == uint64_t(ex.exit_code));
  CHECK(last.eid == trace->steps - 1);
  // Everything printed went out through write/writev, whose results add up
  // to the output.
  uint64_t written = 0;
  for (const auto& s : trace->syscalls)
    if ((s.number == arch.write || s.number == arch.writev) && s.args[0] == 1) written += s.ret;
  CHECK(written == std::string(ex.stdout_text).size());
  std::filesystem::remove(o.output);
}

}  // namespace

TEST_CASE("x86-64 examples record, verify and read back") {
  for (const Expect& ex : kExamples) record_example(kArches[0], ex);
}

TEST_CASE("aarch64 examples record, verify and read back") {
  for (const Expect& ex : kExamples) record_example(kArches[1], ex);
}

TEST_CASE("--max-steps stops the recording at exactly that many steps") {
  for (const ArchSyscalls& arch : kArches) {
    std::string prog = test::example_path(arch.arch, "loop");
    if (prog.empty()) continue;
    INFO(arch.arch);
    RecordOptions o = test::capture_options({prog, "1000000"}, test::temp_trace("max"));
    o.max_steps = 5000;
    uint64_t calls = 0;
    o.on_step = [&](uint64_t, const LiveState&) { ++calls; };
    auto sum = record(o);
    REQUIRE(sum.ok());
    CHECK(sum->steps == 5000);
    CHECK(calls == 5000);
    CHECK(sum->hit_max_steps);
    CHECK_FALSE(sum->exited);
    auto trace = test::read_trace(o.output);
    REQUIRE(trace.ok());
    CHECK(trace->steps == 5000);
    CHECK_FALSE(trace->thread_ended);
    CHECK(describe(*sum).find("--max-steps") != std::string::npos);
    std::filesystem::remove(o.output);
  }
}
