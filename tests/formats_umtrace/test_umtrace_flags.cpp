// Record flags and register pieces, on hand-made traces: sub-registers
// merge into gdb registers, 32-bit code in a 64-bit trace, non-executed
// conditionals, unreliable records (both table versions), gaps, and the
// event records (skipped system call exits, unknown types).
#include <doctest/doctest.h>

#include "formats/umtrace/umtrace_reader.h"
#include "recording_sink.h"
#include "synthetic_umtrace.h"
#include "temp_dir.h"

using namespace ttd;
using namespace ttd::test;
using namespace ttd::fmt::umtrace;

namespace {

RecordingSink read_trace(const std::string& dir) {
  auto r = UmtraceReader::open(dir);
  REQUIRE_MESSAGE(r, why(r));
  RecordingSink sink;
  auto s = (*r)->read(sink, {});
  REQUIRE_MESSAGE(s, why(s));
  return sink;
}

// The value of a register write effect among effects, if any.
std::optional<uint64_t> reg_effect(const std::vector<RecordedStep::Effect>& effects, const char* name) {
  const uint16_t r = *arch_desc(ArchId::X86_64).find(name);
  std::optional<uint64_t> v;
  for (const auto& e : effects)
    if (e.kind == RecordedStep::Effect::Reg && e.reg == r) {
      uint64_t x = 0;
      std::memcpy(&x, e.bytes.data(), std::min<size_t>(8, e.bytes.size()));
      v = x;
    }
  return v;
}

bool has_effect(const std::vector<RecordedStep::Effect>& effects, RecordedStep::Effect::Kind k) {
  for (const auto& e : effects)
    if (e.kind == k) return true;
  return false;
}

constexpr uint8_t k64 = kFlag64Bit;

}  // namespace

TEST_CASE("sub-register writes update the right bytes of the gdb register") {
  TempDir dir;
  SyntheticUmtrace t(dir.path());
  const uint32_t a = t.thread(10);
  t.thread_begin(a, {{"RAX", 0x1111222233334444}, {"RIP", 0x1000}});
  t.instruction(a, k64, 0x1000, {after_reg("AH", 0x99)});
  t.instruction(a, k64, 0x1001, {after_reg("AX", 0x5555)});
  t.instruction(a, k64, 0x1002, {after_reg("AL", 0x77)});
  t.instruction(a, k64, 0x1003, {after_reg("EAX", 0xdeadbeef)});  // clears the upper half in 64-bit code
  t.instruction(a, k64, 0x1004, {after_reg("R8B", 0x12)});
  t.finish();
  RecordingSink s = read_trace(dir.path());
  REQUIRE(s.steps.size() == 6);
  CHECK(reg_effect(s.steps[1].effects, "rax") == 0x1111222233339944ull);
  CHECK(reg_effect(s.steps[2].effects, "rax") == 0x1111222233335555ull);
  CHECK(reg_effect(s.steps[3].effects, "rax") == 0x1111222233335577ull);
  CHECK(reg_effect(s.steps[4].effects, "rax") == 0x00000000deadbeefull);
  CHECK(reg_effect(s.steps[5].effects, "r8") == 0x12ull);
  CHECK(s.reg_now(10, "rax") == 0xdeadbeefull);
}

TEST_CASE("32-bit code in a 64-bit trace writes the low half of the 64-bit register") {
  TempDir dir;
  SyntheticUmtrace t(dir.path());
  const uint32_t a = t.thread(10);
  t.thread_begin(a, {{"RAX", 0xaaaabbbbccccdddd}, {"RCX", 5}, {"RIP", 0x1000}});
  t.instruction(a, 0, 0x1000, {after_reg("EAX", 0x12345678, false), after_reg("CX", 0x9, false)}, {0x90}, false);
  t.finish();
  RecordingSink s = read_trace(dir.path());
  CHECK(s.info.arch == ArchId::X86_64);
  CHECK(s.reg_now(10, "rax") == 0xaaaabbbb12345678ull);
  CHECK(s.reg_now(10, "rcx") == 9);
}

TEST_CASE("a piece of a register nobody knows leaves it unknown until the rest is known") {
  TempDir dir;
  SyntheticUmtrace t(dir.path());
  const uint32_t a = t.thread(10);
  t.thread_begin(a, {{"RAX", 1}, {"RIP", 0x1000}});
  t.instruction(a, k64 | kFlagInstrumentationWasOff, 0x2000, {after_reg("AH", 0x42)});
  t.instruction(a, k64, 0x2001, {after_reg("EAX", 0x4200)});
  t.finish();
  RecordingSink s = read_trace(dir.path());
  REQUIRE(s.steps.size() == 3);
  CHECK(has_effect(s.steps[0].effects, RecordedStep::Effect::RegUnknown));  // the gap, before record 1
  CHECK(!reg_effect(s.steps[1].effects, "rax"));
  CHECK(reg_effect(s.steps[2].effects, "rax") == 0x4200ull);
}

TEST_CASE("a non-executed conditional changes nothing") {
  TempDir dir;
  SyntheticUmtrace t(dir.path());
  const uint32_t a = t.thread(10);
  t.thread_begin(a, {{"RAX", 1}, {"RIP", 0x1000}});
  t.instruction(a, k64 | kFlagNotExecuted, 0x1000, {in_reg("RAX", 1), after_reg("RAX", 2), after_mem(0x8000, {1, 2})});
  t.finish();
  RecordingSink s = read_trace(dir.path());
  CHECK(s.reg_now(10, "rax") == 1);
  CHECK(!has_effect(s.steps[1].effects, RecordedStep::Effect::MemWrite));
  CHECK(std::get<uint64_t>(s.steps[1].attrs.at("not_executed")) == 1);
}

TEST_CASE("unreliable records: outputs become unknown, inputs are not used, the step says so") {
  SUBCASE("version 1, outputs unreliable (0x20)") {
    TempDir dir;
    SyntheticUmtrace t(dir.path());
    const uint32_t a = t.thread(10);
    t.thread_begin(a, {{"RAX", 1}, {"RBX", 3}, {"RIP", 0x1000}});
    t.instruction(a, k64, 0x1000, {after_mem(0x8000, {9, 9})});
    t.instruction(a, k64 | 0x20, 0x1001, {in_reg("RBX", 3), after_reg("RAX", 2), after_mem(0x8000, {1, 2})});
    t.finish();
    RecordingSink s = read_trace(dir.path());
    CHECK(!s.reg_now(10, "rax"));
    CHECK(s.reg_now(10, "rbx") == 3);
    CHECK(has_effect(s.steps[2].effects, RecordedStep::Effect::MemUnknown));
    CHECK(!s.state.find_process(7)->memory.all_known(0x8000, 1));
    CHECK(std::get<uint64_t>(s.steps[2].attrs.at("unreliable")) == 1);
    CHECK(std::get<uint64_t>(s.steps[2].attrs.at("unreliable_flags")) == 0x20);
  }
  SUBCASE("version 1, inputs unreliable (0x10): outputs still used") {
    TempDir dir;
    SyntheticUmtrace t(dir.path());
    const uint32_t a = t.thread(10);
    t.thread_begin(a, {{"RBX", 3}, {"RIP", 0x1000}});
    t.instruction(a, k64 | 0x10, 0x1000, {in_reg("RBX", 0x666), in_mem(0x8000, {5}), after_reg("RAX", 2)});
    t.finish();
    RecordingSink s = read_trace(dir.path());
    CHECK(s.reg_now(10, "rbx") == 3);
    CHECK(s.reg_now(10, "rax") == 2);
    CHECK(!s.state.find_process(7)->memory.all_known(0x8000, 1));
  }
  SUBCASE("version 0, 0x10: inputs and outputs are garbage") {
    TempDir dir;
    WriterOptions o;
    o.exec_version = 0;
    SyntheticUmtrace t(dir.path(), o);
    const uint32_t a = t.thread(10);
    t.thread_begin(a, {{"RAX", 1}, {"RIP", 0x1000}});
    t.instruction(a, k64 | 0x10, 0x1000, {in_reg("RBX", 0x666), after_reg("RAX", 2)});
    t.finish();
    RecordingSink s = read_trace(dir.path());
    CHECK(s.reg_now(10, "rbx") == 0);
    CHECK(!s.reg_now(10, "rax"));
  }
}

TEST_CASE("a gap forgets every thread and all memory once, not again for threads resuming from it") {
  TempDir dir;
  SyntheticUmtrace t(dir.path());
  const uint32_t a = t.thread(10), b = t.thread(20);
  t.thread_begin(a, {{"RAX", 1}, {"RIP", 0x1000}});
  t.thread_begin(b, {{"RAX", 2}, {"RIP", 0x1000}});
  t.instruction(a, k64, 0x1000, {after_mem(0x8000, {1, 2, 3})});                      // 2
  t.instruction(b, k64, 0x1000, {});                                                   // 3
  t.instruction(a, k64 | kFlagInstrumentationWasOff, 0x1000, {after_reg("RCX", 7)});  // 4: the gap
  t.instruction(a, k64, 0x1001, {after_mem(0x9000, {4})});                             // 5
  t.instruction(b, k64 | kFlagInstrumentationWasOff, 0x1000, {after_reg("RDX", 8)});  // 6: same gap
  t.instruction(b, k64, 0x1001, {});                                                   // 7
  t.instruction(b, k64 | kFlagInstrumentationWasOff, 0x1002, {});                     // 8: a new gap
  t.finish();
  RecordingSink s = read_trace(dir.path());
  REQUIRE(s.steps.size() == 9);
  // Before record 4 (effects of step 3): both threads' registers and the memory go.
  CHECK(has_effect(s.steps[3].effects, RecordedStep::Effect::RegUnknown));
  CHECK(has_effect(s.steps[3].effects, RecordedStep::Effect::MemUnknown));
  // Thread b resumes from that same gap: nothing more is forgotten.
  CHECK(!has_effect(s.steps[5].effects, RecordedStep::Effect::MemUnknown));
  CHECK(!has_effect(s.steps[5].effects, RecordedStep::Effect::RegUnknown));
  // A flag after b ran again is a new gap.
  CHECK(has_effect(s.steps[7].effects, RecordedStep::Effect::MemUnknown));
  CHECK(!s.reg_now(10, "rax"));
  CHECK(!s.reg_now(10, "rcx"));
  CHECK(!s.state.find_process(7)->memory.all_known(0x9000, 1));
}

TEST_CASE("event records: skipped system call exits, exits without entry, unknown types, application end") {
  TempDir dir;
  SyntheticUmtrace t(dir.path());
  UmtraceWriter& w = t.writer();
  const uint32_t a = t.thread(10);
  t.thread_begin(a, {{"RIP", 0x1000}, {"RSP", 0x7000}});
  SyscallSpec sc;
  sc.raw_id = 0x55;
  sc.uniform_id = 0x1234;
  sc.args = {1, 2, 3};
  const uint64_t id = w.add_syscall(sc);
  REQUIRE(w.syscall_entry(a, k64, id, ContextSpec{t.dump({{"RIP", 0x1002}, {"RSP", 0x7000}}), {}}));
  REQUIRE(w.skipped_syscall_exit(a, k64, id));
  REQUIRE(w.syscall_exit(a, k64, -1, ContextSpec{t.dump({{"RIP", 0x3000}, {"RSP", 0x6000}}), {}}));
  const uint8_t junk[] = {1, 2, 3};
  REQUIRE(w.raw_record(a, 7, k64, junk));
  REQUIRE(w.context_change(a, k64, ExecType::ContextException, ContextSpec{t.dump({{"RIP", 0x4000}}), {}}));
  REQUIRE(w.thread_end(a, k64, -3));
  REQUIRE(w.app_end(a, k64, 0));
  t.finish();
  RecordingSink s = read_trace(dir.path());
  REQUIRE(s.steps.size() == 8);
  using K = fmt::StepKind;
  CHECK(s.steps[1].info.kind == K::Syscall);
  CHECK(std::get<uint64_t>(s.steps[1].attrs.at("syscall")) == 0x1234);
  CHECK(std::get<std::vector<uint64_t>>(s.steps[1].attrs.at("args")) == std::vector<uint64_t>{1, 2, 3});
  CHECK(s.steps[1].info.pc == 0x1002);
  CHECK(std::get<std::string>(s.steps[2].attrs.at("event")) == "skipped exit");
  CHECK(s.steps[3].info.kind == K::ContextChange);
  CHECK(s.steps[3].info.pc == 0x3000);
  CHECK(s.steps[4].info.kind == K::Marker);
  CHECK(std::get<uint64_t>(s.steps[4].attrs.at("record_type")) == 7);
  CHECK(std::get<std::string>(s.steps[5].attrs.at("reason")) == "exception handling");
  CHECK(s.steps[6].info.kind == K::ThreadEnd);
  CHECK(std::get<int64_t>(s.steps[6].attrs.at("exit_code")) == -3);
  CHECK(std::get<std::string>(s.steps[7].attrs.at("event")) == "application end");
  CHECK(reg_effect(s.steps[2].effects, "rsp") == 0x6000ull);  // the exit context, before its step
}

TEST_CASE("code bytes become known right before an instruction first runs, once") {
  TempDir dir;
  SyntheticUmtrace t(dir.path());
  const uint32_t a = t.thread(10);
  t.thread_begin(a, {{"RIP", 0x1000}});
  t.instruction(a, k64, 0x1000, {}, {0x48, 0xff, 0xc0});
  t.instruction(a, k64, 0x1000, {}, {0x48, 0xff, 0xc0});
  t.finish();
  RecordingSink s = read_trace(dir.path());
  REQUIRE(s.steps.size() == 3);
  CHECK(has_effect(s.steps[0].effects, RecordedStep::Effect::MemWrite));
  CHECK(!has_effect(s.steps[1].effects, RecordedStep::Effect::MemWrite));
  CHECK(s.steps[1].info.size == 3);
  uint8_t code[3];
  uint8_t valid[3];
  s.state.find_process(7)->memory.read(0x1000, code, valid, 3);
  CHECK(code[0] == 0x48);
  CHECK(code[2] == 0xc0);
}
