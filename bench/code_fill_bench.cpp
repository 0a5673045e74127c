// What a debugger's memory read costs when the trace lacks the code bytes
// (TT6, Tenet, FULL): query::fill_code_from_program (engine/query/
// program_code_fill.h) takes them from the program's ELF after asking
// "did any traced step write here before this EID?". The gdb target
// (tools/ttd/engine_target.cpp, read_memory) and DAP readMemory
// (dap/model/engine_debuggee.cpp) call it once per read, after the state
// read, with the cursor's EID; it asks once per run of unknown executable
// bytes. Here every byte is treated as unknown (known[] all 0), so the
// figure is the cost of that question on any trace, e.g. the 100 M-step
// loop trace of scripts/bench.sh, at a late and a middle EID, for read
// sizes a debugger uses (64 B: x/i and stepping; 4 KiB and 16 KiB: a
// memory or disassembly view).
//
//   TTD_BENCH_TRACE    the trace (indexed; its program must exist where the
//                      trace names it, or TTD_BENCH_PROGRAM)
//   TTD_BENCH_PROGRAM  optional: the traced program's ELF
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <vector>

#include "engine/index_file.h"
#include "engine/program_image.h"
#include "engine/query/chunk_reader.h"
#include "engine/query/program_code_fill.h"
#include "engine/summary_filter_gate.h"
#include "engine/trace.h"

using namespace ttd;

namespace {

struct Target {
  std::shared_ptr<Trace> trace;
  uint64_t pc = 0, pid = 0;  // a pc the trace runs late, in the program's code
};

const Target& target() {
  static Target t = [] {
    Target t;
    const char* p = std::getenv("TTD_BENCH_TRACE");
    if (!p || !*p) return t;
    OpenOptions o;
    if (const char* prog = std::getenv("TTD_BENCH_PROGRAM")) o.program = prog;
    auto r = Trace::open(p, o);
    if (!r || !(*r)->program()) return t;
    t.trace = *r;
    // The last pc in the program's code, searching back from the end.
    query::ChunkReader reader(*t.trace);
    for (size_t c = reader.chunk_count(); c-- > 0 && !t.pc;) {
      if (!reader.load(c)) break;
      while (reader.next())
        if (t.trace->program()->executable(reader.step().pc)) t.pc = reader.step().pc;
    }
    t.pid = t.trace->threads().empty() ? 0 : t.trace->threads().front().pid;
    return t;
  }();
  return t;
}

// args: read bytes, EID as per mille of the trace, summary filters on (1) or off (0).
void BM_CodeFill(benchmark::State& state) {
  const Target& t = target();
  if (!t.trace || !t.pc) {
    state.SkipWithError("set TTD_BENCH_TRACE to an indexed trace whose program is found (TTD_BENCH_PROGRAM)");
    return;
  }
  const size_t len = size_t(state.range(0));
  const uint64_t eid = t.trace->step_count() * uint64_t(state.range(1)) / 1000;
  set_summary_filters_enabled(state.range(2) != 0);
  const uint64_t addr = t.pc & ~uint64_t(len - 1);  // the read's block holding the pc (len a power of two)
  std::vector<uint8_t> data(len), known(len);
  size_t filled = 0;
  auto& counters = summary_filter_counters();
  const uint64_t asked0 = counters.asked, out0 = counters.ruled_out;
  for (auto _ : state) {
    std::fill(known.begin(), known.end(), 0);
    filled = query::fill_code_from_program(*t.trace, eid, t.pid, addr, data.data(), known.data(), len);
    benchmark::DoNotOptimize(data.data());
  }
  set_summary_filters_enabled(true);
  state.counters["filled"] = double(filled);
  state.counters["eid"] = double(eid);
  state.counters["groups_asked"] = double(counters.asked - asked0) / double(state.iterations());
  state.counters["groups_ruled_out"] = double(counters.ruled_out - out0) / double(state.iterations());
}
BENCHMARK(BM_CodeFill)
    ->ArgNames({"bytes", "eid_permille", "filters"})
    ->Args({64, 999, 1})
    ->Args({64, 500, 1})
    ->Args({256, 999, 1})
    ->Args({1024, 999, 1})
    ->Args({4096, 999, 1})
    ->Args({16384, 999, 1})
    ->Args({64, 999, 0})
    ->Unit(benchmark::kMillisecond);

// The 4 KiB block of the last pc read line by line (64 B each): how many of
// its lines the group filters rule out nowhere (false positives in every
// group), and the CPU of the whole sweep.
void BM_CodeFillPerLine(benchmark::State& state) {
  const Target& t = target();
  if (!t.trace || !t.pc) {
    state.SkipWithError("set TTD_BENCH_TRACE to an indexed trace whose program is found (TTD_BENCH_PROGRAM)");
    return;
  }
  const uint64_t eid = t.trace->step_count() * 999 / 1000, block = t.pc & ~uint64_t(4095);
  std::vector<uint8_t> data(64), known(64);
  auto& counters = summary_filter_counters();
  size_t lines = 0, never = 0;
  for (auto _ : state) {
    lines = never = 0;
    for (uint64_t a = block; a < block + 4096; a += 64) {
      if (!t.trace->program()->executable(a)) continue;
      const uint64_t out0 = counters.ruled_out;
      std::fill(known.begin(), known.end(), 0);
      query::fill_code_from_program(*t.trace, eid, t.pid, a, data.data(), known.data(), 64);
      ++lines;
      if (counters.ruled_out == out0) ++never;
    }
  }
  state.counters["lines"] = double(lines);
  state.counters["lines_ruled_out_nowhere"] = double(never);
}
BENCHMARK(BM_CodeFillPerLine)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
