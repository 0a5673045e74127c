// Engine benchmarks on a recorded trace (TTD_BENCH_TRACE): index build
// rate (with every CPU, and pinned to one), index size against the trace's op volume, random seek latency
// percentiles, reverse-continue to a breakpoint 50 M steps back, and the
// peak RSS of a process that seeks. See docs/performance.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>

#include "engine/cursor.h"
#include "engine/motion/timeline.h"
#include "formats/ucir/snappy_frame_reader.h"
#include "formats/ucir/ucir_header.h"
#include "bench/process_usage.h"
#include "tests/support/one_cpu_affinity.h"

using namespace ttd;
using ttd::bench::peak_rss_mb;
using ttd::bench::process_cpu_s;
using Clock = std::chrono::steady_clock;

namespace {

std::string trace_path() {
  const char* p = std::getenv("TTD_BENCH_TRACE");
  return p ? p : "";
}

std::shared_ptr<Trace> open_shared() {
  static std::shared_ptr<Trace> t;
  if (!t) {
    auto r = Trace::open(trace_path());
    if (r) t = *r;
  }
  return t;
}

// Uncompressed size of the UCIR op stream: what "trace volume" means here.
uint64_t ucir_op_bytes(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return 0;
  std::fseek(f, 0, SEEK_END);
  uint64_t size = uint64_t(std::ftell(f));
  std::fseek(f, fmt::ucir::kHeaderSize, SEEK_SET);
  fmt::SnappyFrameReader r(f, path, fmt::ucir::kHeaderSize, size);
  std::vector<uint8_t> buf(fmt::SnappyFrameReader::kMaxBlock);
  uint64_t total = 0;
  for (;;) {
    auto n = r.next(buf.data());
    if (!n || *n == 0) break;
    total += *n;
  }
  return total;
}

// A fresh build (the index file does not exist before), timed by the wall
// clock from opening the trace to the index being written and reopened.
void index_build(benchmark::State& state, bool one_cpu) {
  std::string path = trace_path();
  if (path.empty()) return state.SkipWithError("set TTD_BENCH_TRACE to a UCIR trace");
  std::string index = path + ".bench.ttdidx";
  std::filesystem::remove(index);
  std::optional<test::OneCpuAffinity> pin;
  if (one_cpu && !pin.emplace().pinned()) return state.SkipWithError("cannot pin to one CPU");
  std::shared_ptr<Trace> t;
  double cpu0 = process_cpu_s();
  auto t0 = Clock::now();
  for (auto _ : state) {
    OpenOptions o;
    o.rebuild = true;
    o.index_path = index;
    auto r = Trace::open(path, o);
    if (!r) return state.SkipWithError(r.error().to_string().c_str());
    t = *r;
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  pin.reset();
  double secs = t->stats().build_seconds;
  // With both CPUs the reader decodes and the blob writer compresses on
  // threads of their own: CPU seconds of all threads give the rate of the
  // work itself. Pinned, they run in the calling thread (one CPU has
  // nothing to overlap) and the wall clock is the one-core rate.
  double cpu = process_cpu_s() - cpu0;
  state.counters["cpu_s"] = cpu;
  state.counters["Msteps_per_cpu_s"] = double(t->step_count()) / cpu / 1e6;
  uint64_t ops = ucir_op_bytes(path);
  state.counters["steps"] = double(t->step_count());
  state.counters["build_s"] = secs;
  state.counters["wall_s"] = wall;
  state.counters["Msteps_per_s"] = double(t->step_count()) / wall / 1e6;
  state.counters["index_MB"] = double(t->stats().index_bytes) / 1e6;
  state.counters["op_volume_MB"] = double(ops) / 1e6;
  state.counters["index_over_ops"] = ops ? double(t->stats().index_bytes) / double(ops) : 0;
  t.reset();
  std::filesystem::remove(index);
}
void BM_IndexBuild(benchmark::State& state) { index_build(state, false); }
BENCHMARK(BM_IndexBuild)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
// Issue 2's "on one core": the same build with the process pinned to one CPU.
void BM_IndexBuildOneCpu(benchmark::State& state) { index_build(state, true); }
BENCHMARK(BM_IndexBuildOneCpu)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

// Random seeks; `read_after` also reads 64 bytes at the stopped thread's
// pc and stack pointer, as a debugger does at every stop (with lazy pages
// the seek alone does not read them). Run each variant in a process of its
// own (--benchmark_filter=...$) for its peak RSS.
void random_seek(benchmark::State& state, PageLoading loading, bool read_after) {
  auto t = open_shared();
  if (!t) return state.SkipWithError("cannot open TTD_BENCH_TRACE");
  Cursor c(t, loading);
  std::mt19937_64 rng(1);
  std::vector<double> us;
  uint8_t bytes[64], known[64];
  for (auto _ : state) {
    uint64_t e = rng() % (t->step_count() + 1);
    auto t0 = Clock::now();
    if (!c.seek(e).ok()) return state.SkipWithError("seek failed");
    if (read_after) {
      const ThreadState* th = c.state().find_thread(c.current_tid());
      const ProcessState* p = th ? c.state().find_process(th->pid) : nullptr;
      if (p) {
        const ArchDesc& a = t->arch();
        for (uint16_t r : {a.pc_index, a.sp_index})
          if (auto v = th->regs.get_u64(r)) p->memory.read(*v, bytes, known, sizeof bytes);
      }
    }
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    benchmark::DoNotOptimize(c.state());
  }
  auto p = bench::percentiles(us);
  state.counters["p50_us"] = p.p50;
  state.counters["p99_us"] = p.p99;
  state.counters["max_us"] = p.max;
  state.counters["peak_rss_MB"] = peak_rss_mb();
}
void BM_RandomSeek(benchmark::State& state) { random_seek(state, PageLoading::Lazy, false); }
BENCHMARK(BM_RandomSeek)->Iterations(20000)->Unit(benchmark::kMicrosecond);
void BM_RandomSeekRead(benchmark::State& state) { random_seek(state, PageLoading::Lazy, true); }
BENCHMARK(BM_RandomSeekRead)->Iterations(20000)->Unit(benchmark::kMicrosecond);
// Every page of the keyframe at the seek, as before issue 17 (A/B; fewer
// iterations: a far seek on a page-heavy trace takes tens of ms).
void BM_RandomSeekEager(benchmark::State& state) { random_seek(state, PageLoading::Eager, false); }
BENCHMARK(BM_RandomSeekEager)->Iterations(1000)->Unit(benchmark::kMicrosecond);
void BM_RandomSeekEagerRead(benchmark::State& state) { random_seek(state, PageLoading::Eager, true); }
BENCHMARK(BM_RandomSeekEagerRead)->Iterations(1000)->Unit(benchmark::kMicrosecond);

// A pc executed exactly once, early in the trace (startup code, which is
// short in a static binary: the loop starts a few hundred steps in): the
// breakpoint that reverse-continue has to find 50 M steps back.
std::optional<std::pair<uint64_t, uint64_t>> once_pc(const std::shared_ptr<Trace>& t) {
  for (uint64_t e = 0; e < 20000 && e < t->step_count(); e += 7) {
    Timeline c(t);
    if (!c.seek(e).ok() || !c.current_step()) continue;
    uint64_t pc = c.current_step()->pc;
    StopConditions sc;
    sc.breakpoints = {pc};
    if (c.run(Direction::Forward, sc).kind == StopKind::HistoryEnd) {
      Timeline b(t);
      (void)b.seek(e);
      if (b.run(Direction::Backward, sc).kind == StopKind::HistoryBegin) return std::make_pair(e, pc);
    }
  }
  return std::nullopt;
}

void BM_ReverseContinue50M(benchmark::State& state) {
  auto t = open_shared();
  if (!t) return state.SkipWithError("cannot open TTD_BENCH_TRACE");
  auto once = once_pc(t);
  if (!once) return state.SkipWithError("no singly executed pc found");
  uint64_t back = std::min<uint64_t>(50'000'000, t->step_count() - once->first);
  uint64_t from = once->first + back;
  StopConditions sc;
  sc.breakpoints = {once->second};
  Timeline c(t);
  for (auto _ : state) {
    state.PauseTiming();
    (void)c.seek(from);
    state.ResumeTiming();
    Stop s = c.run(Direction::Backward, sc);
    if (s.kind != StopKind::Breakpoint || s.eid != once->first) return state.SkipWithError("did not stop at the breakpoint");
  }
  state.counters["steps_back"] = double(back);
}
BENCHMARK(BM_ReverseContinue50M)->Iterations(20)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
