// Writes the fuzz seed corpus (tests/fuzz/corpus/umtrace/) when
// TTD_UMTRACE_SEED_DIR names a directory; otherwise checks only that a
// packed trace unpacks to the same files. Seeds are small traces: a
// hand-made one with every record type, and short Unicorn-traced x86-64
// and i386 runs (one with a gap).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "guest_setups.h"
#include "synthetic_umtrace.h"
#include "temp_dir.h"
#include "umtrace_fuzz_input.h"

using namespace ttd;
using namespace ttd::test;
using namespace ttd::fmt::umtrace;

namespace {

void every_record_type(const std::string& dir) {
  SyntheticUmtrace t(dir);
  UmtraceWriter& w = t.writer();
  w.add_module(ModuleSpec{0, 40, 0x1000, 0x1fff, "C:\\a.exe", "\\Device\\a.exe"});
  const uint32_t a = t.thread(10), b = t.thread(20);
  t.thread_begin(a, {{"RAX", 1}, {"RIP", 0x1000}, {"RSP", 0x7000}});
  t.instruction(a, kFlag64Bit, 0x1000, {in_reg("RAX", 1), in_mem(0x8000, {1, 2}), after_reg("AH", 5), after_mem(0x8000, {3, 4})});
  t.thread_begin(b, {{"RIP", 0x1000}});
  t.instruction(b, kFlag64Bit | kFlagNotExecuted, 0x1004, {after_reg("EAX", 9)}, {0x0f, 0x44, 0xc1});
  t.instruction(b, kFlag64Bit | 0x30, 0x1008, {in_reg("RBX", 1), after_reg("RCX", 2)});
  SyscallSpec sc;
  sc.args = {1, 2};
  const uint64_t id = w.add_syscall(sc);
  REQUIRE(w.syscall_entry(a, kFlag64Bit, id, ContextSpec{t.dump({{"RIP", 0x1002}}), {}}));
  REQUIRE(w.skipped_syscall_exit(a, kFlag64Bit, id));
  REQUIRE(w.syscall_exit(a, kFlag64Bit, -1, ContextSpec{t.dump({{"RIP", 0x1002}}), {ContextMemSpec{0x8020, {1}}}}));
  REQUIRE(w.context_change(a, kFlag64Bit, ExecType::ContextCallback, ContextSpec{t.dump({{"RIP", 0x1010}}), {}}));
  t.instruction(a, kFlagInstrumentationWasOff, 0x1002, {after_reg("EAX", 1, false)}, {0x90}, false);
  const uint8_t junk[] = {7};
  REQUIRE(w.raw_record(b, 7, 0, junk));
  REQUIRE(w.thread_end(b, kFlag64Bit, 0));
  REQUIRE(w.app_end(a, kFlag64Bit, 0));
  t.finish();
}

UmtraceTracerSetup shortened(UmtraceTracerSetup s) {
  for (auto& th : s.threads)
    for (auto& [name, v] : th.regs)
      if (name == "rsi" || name == "esi") v = 2;
  s.context_changes = {12};
  return s;
}

}  // namespace

TEST_CASE("fuzz inputs: a packed trace unpacks to the same files, seeds on request") {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds;
  {
    TempDir d;
    every_record_type(d.path());
    seeds.emplace_back("every_record_type", pack_trace_dir(d.path()));
    TempDir back;
    unpack_to_dir(seeds.back().second, back.path());
    for (const char* f : kFuzzFiles) CHECK(read_bytes(d.file(f)) == read_bytes(back.file(f)));
  }
  const char* out = std::getenv("TTD_UMTRACE_SEED_DIR");
  if (!out) return;
  {
    TempDir d;
    run_umtrace_tracer(shortened(guest64_setup()), d.file("t"));
    seeds.emplace_back("unicorn_x86_64_two_threads", pack_trace_dir(d.file("t")));
  }
  {
    TempDir d;
    run_umtrace_tracer(shortened(guest32_setup()), d.file("t"));
    seeds.emplace_back("unicorn_i386_v0", pack_trace_dir(d.file("t")));
  }
  {
    TempDir d;
    UmtraceTracerSetup s = shortened(guest64_setup());
    s.gaps = {{20, 6}};
    run_umtrace_tracer(s, d.file("t"));
    seeds.emplace_back("unicorn_x86_64_gap", pack_trace_dir(d.file("t")));
  }
  std::filesystem::create_directories(out);
  for (const auto& [name, bytes] : seeds) write_bytes(std::string(out) + "/" + name, bytes);
  MESSAGE("wrote " << seeds.size() << " seeds to " << out);
}
