// read(write(execution)) == execution: the Unicorn tracer runs real x86
// code with two threads, system calls, context changes (and gaps), writes a
// UMTracer trace, and the engine's reconstruction from that trace must equal
// the emulator's state at every EID, register by register, byte by byte.
#include <doctest/doctest.h>

#include "engine/cursor.h"
#include "engine/trace.h"
#include "formats/umtrace/umtrace_reader.h"
#include "guest_setups.h"
#include "recording_sink.h"
#include "state_compare.h"
#include "temp_dir.h"

using namespace ttd;
using namespace ttd::test;

namespace {

std::shared_ptr<Trace> open_indexed(const TempDir& dir, const std::string& trace) {
  OpenOptions o;
  o.index_path = dir.file("trace.ttdidx");
  o.keyframe_interval = 64;  // many chunks: seeks replay from keyframes, not from the start
  auto t = Trace::open(trace, o);
  REQUIRE_MESSAGE(t, why(t));
  return *t;
}

struct RoundTrip {
  CompareStats stats;
  uint64_t instruction_eids = 0, fully_known = 0;
};

// Seeks every EID and compares with the emulator.
RoundTrip check_every_eid(const std::shared_ptr<Trace>& trace, const UmtraceTracerRun& run,
                          const UmtraceTracerSetup& setup, uint64_t known_from, uint64_t known_until) {
  RoundTrip rt;
  REQUIRE(trace->step_count() == run.at_eid.size());
  Cursor c(trace);
  for (uint64_t eid = 0; eid < trace->step_count(); ++eid) {
    REQUIRE(c.seek(eid));
    const auto step = c.current_step();
    REQUIRE(step);
    compare_state(c.state(), run.at_eid[eid], setup, step->tid, eid, rt.stats);
    if (step->kind == fmt::StepKind::Instruction) {
      ++rt.instruction_eids;
      if (eid >= known_from && eid < known_until) {
        const bool known = general_registers_known(c.state(), step->tid);
        rt.fully_known += known;
        CHECK_MESSAGE(known, "EID " << eid << ": the running thread's registers should all be known");
      }
    }
  }
  return rt;
}

}  // namespace

TEST_CASE("x86-64, two threads: every register and memory byte at every EID equals the emulator's") {
  TempDir dir;
  const std::string trace = dir.file("trace");
  UmtraceTracerSetup setup = guest64_setup();
  UmtraceTracerRun run = run_umtrace_tracer(setup, trace);
  CHECK(run.syscalls == 2);
  CHECK(run.context_changes == 2);
  CHECK(run.recorded_instructions > 300);

  auto t = open_indexed(dir, trace);
  CHECK(t->info().format == "umtrace");
  CHECK(t->info().arch == ArchId::X86_64);
  CHECK(t->threads().size() == 2);
  RoundTrip rt = check_every_eid(t, run, setup, 1, ~0ull);
  CHECK_MESSAGE(rt.stats.mismatches == 0, rt.stats.first_mismatch);
  MESSAGE("compared " << rt.stats.registers << " register values and " << rt.stats.memory_bytes
                      << " memory bytes over " << t->step_count() << " EIDs");
  // Two threads of ~60 registers each are known at nearly every EID.
  CHECK(rt.stats.registers > 90 * t->step_count());
  CHECK(rt.stats.memory_bytes > 200 * t->step_count());
}

TEST_CASE("i386 (record version 0, insRec version 0): the reconstruction equals the emulator") {
  TempDir dir;
  const std::string trace = dir.file("trace32");
  UmtraceTracerSetup setup = guest32_setup();
  UmtraceTracerRun run = run_umtrace_tracer(setup, trace);
  CHECK(run.syscalls == 2);
  auto t = open_indexed(dir, trace);
  CHECK(t->info().arch == ArchId::I386);
  RoundTrip rt = check_every_eid(t, run, setup, 1, ~0ull);
  CHECK_MESSAGE(rt.stats.mismatches == 0, rt.stats.first_mismatch);
  MESSAGE("compared " << rt.stats.registers << " register values and " << rt.stats.memory_bytes
                      << " memory bytes over " << t->step_count() << " EIDs");
  CHECK(rt.stats.registers > 50 * t->step_count());
}

TEST_CASE("an instrumentation gap makes earlier values unknown, never wrong") {
  TempDir dir;
  const std::string trace = dir.file("gap");
  UmtraceTracerSetup setup = guest64_setup();
  setup.gaps = {{60, 25}, {140, 3}};
  UmtraceTracerRun run = run_umtrace_tracer(setup, trace);
  REQUIRE(run.first_gap_eid != ~0ull);
  CHECK(run.recorded_instructions + 28 == run.instructions);

  auto t = open_indexed(dir, trace);
  // Up to the first gap everything is known; after it, only what records
  // told again -- but nothing known may differ from the emulator.
  RoundTrip rt = check_every_eid(t, run, setup, 1, run.first_gap_eid);
  CHECK_MESSAGE(rt.stats.mismatches == 0, rt.stats.first_mismatch);
  MESSAGE("with gaps: compared " << rt.stats.registers << " register values and " << rt.stats.memory_bytes
                                 << " memory bytes over " << t->step_count() << " EIDs");

  // Right at the first flagged record, the other thread's registers and the
  // memory written before are unknown.
  Cursor c(t);
  REQUIRE(c.seek(run.first_gap_eid + 1));
  size_t known_threads = 0;
  for (const auto& [tid, th] : c.state().threads())
    if (tid != c.current_tid() && th.regs.valid(0)) ++known_threads;
  CHECK(known_threads == 0);
}

TEST_CASE("steps carry threads, kinds, system calls and context changes") {
  TempDir dir;
  const std::string trace = dir.file("trace");
  UmtraceTracerSetup setup = guest64_setup();
  UmtraceTracerRun run = run_umtrace_tracer(setup, trace);
  auto reader = fmt::umtrace::UmtraceReader::open(trace);
  REQUIRE_MESSAGE(reader, why(reader));
  RecordingSink sink;
  auto s = (*reader)->read(sink, {});
  REQUIRE_MESSAGE(s, why(s));
  REQUIRE(sink.steps.size() == run.record_types.size());
  CHECK(sink.ended);
  size_t entries = 0, exits = 0;
  for (size_t i = 0; i < sink.steps.size(); ++i) {
    const RecordedStep& st = sink.steps[i];
    CHECK((st.info.tid == 0x1004 || st.info.tid == 0x1008));
    CHECK(st.info.pid == 4242);
    using K = fmt::StepKind;
    switch (run.record_types[i]) {
      case 0: CHECK(st.info.kind == K::Instruction); CHECK(st.info.size > 0); break;
      case 1: CHECK(st.info.kind == K::ThreadBegin); break;
      case 2: CHECK(st.info.kind == K::ThreadEnd); CHECK(st.attrs.count("exit_code")); break;
      case 3: CHECK(st.info.kind == K::Marker); CHECK(st.attrs.count("exit_code")); break;
      case 4:
        ++entries;
        CHECK(st.info.kind == K::Syscall);
        CHECK(std::get<uint64_t>(st.attrs.at("syscall")) == 0x142);
        CHECK(std::get<uint64_t>(st.attrs.at("syscall_raw")) == 0x42);
        CHECK(std::get<std::vector<uint64_t>>(st.attrs.at("args")).size() == 4);
        break;
      case 5:
        ++exits;
        CHECK(st.info.kind == K::Syscall);
        CHECK(std::get<uint64_t>(st.attrs.at("completed")) == 1);
        CHECK(st.attrs.count("result"));
        break;
      case 8:
        CHECK(st.info.kind == K::ContextChange);
        CHECK(std::get<std::string>(st.attrs.at("reason")) == "asynchronous procedure call");
        break;
    }
    CHECK(!st.attrs.count("unreliable"));
  }
  CHECK(entries == 2);
  CHECK(exits == 2);

  // trace.xml, modules and threads reach TraceInfo.
  const fmt::TraceInfo& info = sink.info;
  CHECK(info.os == "windows");
  CHECK(info.exec_path == "C:\\ttd\\guest.exe");
  auto prop = [&](const std::string& k) -> std::string {
    for (const auto& [key, v] : info.properties)
      if (key == k) return v;
    return "";
  };
  CHECK(prop("module 0").find("C:\\ttd\\guest.exe 0x400000-0x400fff loaded at EID 0") == 0);
  CHECK(prop("thread 1").find("tid 4104") == 0);
  CHECK(prop("xml Xed/Version") == "20150121");
  CHECK(prop("process id") == "4242");
  // The module appears as a mapping in the initial state.
  const ProcessState* p = sink.state.find_process(4242);
  REQUIRE(p);
  const MemoryRegion* m = p->regions.find(0x400010);
  REQUIRE(m);
  CHECK(m->name == "C:\\ttd\\guest.exe");
}

TEST_CASE("the reader can be run twice with the same result") {
  TempDir dir;
  const std::string trace = dir.file("trace");
  UmtraceTracerSetup setup = guest32_setup();
  run_umtrace_tracer(setup, trace);
  auto reader = fmt::umtrace::UmtraceReader::open(trace);
  REQUIRE(reader);
  RecordingSink a, b;
  REQUIRE((*reader)->read(a, {}));
  REQUIRE((*reader)->read(b, {}));
  REQUIRE(a.steps.size() == b.steps.size());
  CHECK(a.state.digest() == b.state.digest());
}
