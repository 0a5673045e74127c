// History-query benchmarks (engine/query) on a recorded trace, each next
// to the same question answered by linear replay (decoding every step of
// the index from the start, with no summary skipping), with the ratio.
//
//   TTD_BENCH_TRACE        the 100 M-step loop trace (scripts/bench.sh)
//   TTD_BENCH_CALLS_TRACE  optional: a call-heavy trace for call-tree
//                          throughput (build/tests/query/make_call_program)
//
// Targets are chosen from the index itself, so any trace works: the
// address is the first byte written on a page that is written early and
// then not again for at least 50 M steps (or, when no page is that quiet,
// a byte written in the first chunk and not again for 50 M steps: the
// case page summaries cannot help); the register one written early and
// then not for 50 M steps; enumeration covers the page written in the
// most chunks (sparse hits) and the page accessed most in the middle chunk
// (dense hits). See docs/performance.md.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <set>

#include "engine/index_file.h"
#include "engine/query/calls.h"
#include "engine/query/chunk_reader.h"
#include "engine/query/memory_history.h"
#include "engine/query/register_history.h"
#include "state/paged_memory.h"

using namespace ttd;
using namespace ttd::query;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint64_t kDistance = 50'000'000;

std::shared_ptr<Trace> open_env(const char* var) {
  static std::map<std::string, std::shared_ptr<Trace>> cache;
  const char* p = std::getenv(var);
  if (!p || !*p) return nullptr;
  auto& t = cache[p];
  if (!t) {
    auto r = Trace::open(p);
    if (r) t = *r;
  }
  return t;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Linear replay: every step of the index in [from, to), effects decoded.
template <class Visitor>
void linear_scan(const Trace& t, uint64_t from, uint64_t to, Visitor& v) {
  ChunkReader r(t);
  for (size_t c = r.chunk_of(from); c < r.chunk_count(); ++c) {
    if (!r.load(c)) return;
    while (r.next()) {
      if (r.step().eid >= to) return;
      v.step = &r.step();
      if (!r.effects(v)) return;
    }
  }
}

// --- the targets, found from summaries -------------------------------------

struct QuietWrite {
  uint64_t addr = 0, write_eid = 0, start = 0;
  bool found = false;
  bool page_quiet = false;  // false: the page has other writes in between (no chunk can be skipped)
};

// The last writes of the first chunk, byte by byte (start-up code: globals
// set once, like a libc's environment pointer).
struct FirstChunkWrites : EffectVisitor {
  const StepView* step = nullptr;
  std::map<uint64_t, uint64_t> last;  // address -> eid of its last write
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t, uint64_t a, const uint8_t*, uint64_t n) override {
    for (uint64_t i = 0; i < n && i < 64; ++i) last[a + i] = step->eid;
  }
};

// Which of a set of addresses any step writes.
struct RewrittenBytes : EffectVisitor {
  const StepView* step = nullptr;
  const std::map<uint64_t, uint64_t>* watch = nullptr;
  std::set<uint64_t> hit;
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t, uint64_t a, const uint8_t*, uint64_t n) override {
    for (auto it = watch->lower_bound(a); it != watch->end() && it->first < a + n; ++it) hit.insert(it->first);
  }
  void mem_unknown(uint64_t p, uint64_t a, uint64_t n) override { mem_write(p, a, nullptr, n); }
};

// When every page written early is written again within kDistance (a small
// static program: its globals share a page with the hot loop's data), an
// address whose own bytes are not: found by one replay of the first
// kDistance steps, so the figure says what a query costs when the page
// summaries cannot help.
QuietWrite quiet_byte(const Trace& t) {
  QuietWrite q;
  const auto chunks = t.index().load_all_chunks();
  if (chunks.empty() || t.step_count() <= kDistance + chunks[0].steps) return q;
  FirstChunkWrites first;
  linear_scan(t, 0, chunks[0].steps, first);
  RewrittenBytes later;
  later.watch = &first.last;
  linear_scan(t, chunks[0].steps, chunks[0].steps + kDistance, later);
  for (auto [addr, eid] : first.last) {
    if (later.hit.count(addr)) continue;
    q = QuietWrite{addr, eid, eid + kDistance, true, false};
    break;
  }
  return q;
}

// A page written in an early chunk and not again for kDistance steps.
const QuietWrite& quiet_write(const Trace& t) {
  static std::map<const Trace*, QuietWrite> cache;
  auto it = cache.find(&t);
  if (it != cache.end()) return it->second;
  QuietWrite q;
  const auto chunks = t.index().load_all_chunks();
  std::map<uint64_t, size_t> last_chunk;  // page -> last chunk writing it before the horizon
  for (size_t c = 0; c < chunks.size(); ++c)
    for (uint64_t p : chunks[c].summary.pages_written) last_chunk[p] = c;
  uint64_t steps = t.step_count();
  for (size_t c = 0; c < chunks.size() && !q.found; ++c) {
    for (uint64_t p : chunks[c].summary.pages_written) {
      // Its last write in chunk c, then nothing until kDistance later.
      bool later = false;
      for (size_t k = c + 1; k < chunks.size() && chunks[k].first_eid < chunks[c].first_eid + chunks[c].steps + kDistance; ++k)
        if (std::binary_search(chunks[k].summary.pages_written.begin(), chunks[k].summary.pages_written.end(), p)) {
          later = true;
          break;
        }
      if (later) continue;
      MemoryQuery m;
      m.range = {p << kPageShift, kPageSize};
      m.kind = AccessFilter::Write;
      m.start.window = {chunks[c].first_eid, chunks[c].first_eid + chunks[c].steps};
      m.start.direction = Direction::Backward;
      auto hits = find_memory_accesses(t, m, 1);
      if (!hits || hits->empty()) continue;
      q.addr = std::max((*hits)[0].addr, p << kPageShift);
      q.write_eid = (*hits)[0].eid;
      q.start = q.write_eid + kDistance;
      q.found = q.start <= steps;
      if (q.found) break;
    }
    if (chunks[c].first_eid > steps / 4) break;
  }
  q.page_quiet = q.found;
  if (!q.found) q = quiet_byte(t);
  return cache[&t] = q;
}

struct QuietRegister {
  uint16_t reg = 0;
  uint64_t write_eid = 0, start = 0;
  bool found = false;
};

const QuietRegister& quiet_register(const Trace& t) {
  static std::map<const Trace*, QuietRegister> cache;
  auto it = cache.find(&t);
  if (it != cache.end()) return it->second;
  QuietRegister q;
  const auto chunks = t.index().load_all_chunks();
  for (uint16_t r = 0; r < t.arch().regs.size() && r < 256 && !q.found; ++r) {
    if (r == t.arch().pc_index) continue;
    auto bit = [&](size_t c) { return (chunks[c].summary.regs_written[r >> 6] >> (r & 63)) & 1; };
    for (size_t c = 0; c < chunks.size() && chunks[c].first_eid < t.step_count() / 4; ++c) {
      if (!bit(c)) continue;
      auto w = previous_register_write(t, r, chunks[c].first_eid + chunks[c].steps);
      if (!w || !*w) continue;
      uint64_t start = (*w)->eid + kDistance;
      if (start > t.step_count()) break;
      auto again = next_register_write(t, r, (*w)->eid + 1);
      if (again && *again && (*again)->eid < start) continue;
      q = QuietRegister{r, (*w)->eid, start, true};
      break;
    }
  }
  return cache[&t] = q;
}

// The page written in the most chunks (a stack page, typically).
uint64_t hottest_page(const Trace& t) {
  std::map<uint64_t, uint64_t> n;
  for (const auto& c : t.index().load_all_chunks())
    for (uint64_t p : c.summary.pages_written) ++n[p];
  uint64_t best = 0, best_n = 0;
  for (auto [p, k] : n)
    if (k > best_n) best = p, best_n = k;
  return best;
}

// --- memory: first hit 50 M steps back --------------------------------------

void BM_MemoryWriteBackwardFirstHit(benchmark::State& st) {
  auto t = open_env("TTD_BENCH_TRACE");
  if (!t) return st.SkipWithError("set TTD_BENCH_TRACE to a trace of at least 50 M steps");
  const QuietWrite& q = quiet_write(*t);
  if (!q.found) return st.SkipWithError("no address written once and then not for 50 M steps");
  MemoryQuery m;
  m.range = {q.addr, 1};
  m.kind = AccessFilter::Write;
  m.start.window = {0, q.start};
  m.start.direction = Direction::Backward;
  uint64_t hit = 0;
  for (auto _ : st) {
    auto r = find_memory_accesses(*t, m, 1);
    if (!r || r->empty()) return st.SkipWithError("no hit");
    hit = (*r)[0].eid;
  }
  st.counters["addr"] = double(q.addr);
  st.counters["from_eid"] = double(q.start);
  st.counters["steps_back"] = double(q.start - hit);
  st.counters["page_quiet"] = q.page_quiet;
}
BENCHMARK(BM_MemoryWriteBackwardFirstHit)->Unit(benchmark::kMillisecond);

struct LastWrite : EffectVisitor {
  const StepView* step = nullptr;
  uint64_t addr = 0, eid = ~0ull;
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t, uint64_t a, const uint8_t*, uint64_t n) override {
    if (addr >= a && addr < a + n) eid = step->eid;
  }
};

void BM_MemoryWriteBackwardLinearReplay(benchmark::State& st) {
  auto t = open_env("TTD_BENCH_TRACE");
  if (!t) return st.SkipWithError("set TTD_BENCH_TRACE");
  const QuietWrite& q = quiet_write(*t);
  if (!q.found) return st.SkipWithError("no quiet address");
  for (auto _ : st) {
    LastWrite v;
    v.addr = q.addr;
    linear_scan(*t, 0, q.start, v);
    if (v.eid != q.write_eid) return st.SkipWithError("linear replay disagrees with the query");
  }
  st.counters["steps_replayed"] = double(q.start);
}
BENCHMARK(BM_MemoryWriteBackwardLinearReplay)->Unit(benchmark::kMillisecond)->Iterations(1);

// --- memory: enumeration ---------------------------------------------------

// The page with the most accesses in the trace's middle chunk (a stack
// page, typically): enumeration where hits are dense, so the figure is the
// cost per hit rather than the cost of decoding the steps between hits.
struct PageAccessCounts : EffectVisitor {
  const StepView* step = nullptr;
  std::map<uint64_t, uint64_t> n;
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t, uint64_t a, const uint8_t*, uint64_t) override { ++n[a >> kPageShift]; }
  void mem_read(uint64_t, uint64_t a, uint64_t, const uint8_t*) override { ++n[a >> kPageShift]; }
};

uint64_t densest_page(const Trace& t) {
  const auto chunks = t.index().load_all_chunks();
  if (chunks.empty()) return 0;
  const ChunkEntry& mid = chunks[chunks.size() / 2];
  PageAccessCounts v;
  linear_scan(t, mid.first_eid, mid.first_eid + mid.steps, v);
  uint64_t best = 0, best_n = 0;
  for (auto [p, k] : v.n)
    if (k > best_n) best = p, best_n = k;
  return best;
}

void enumerate(benchmark::State& st, uint64_t page) {
  auto t = open_env("TTD_BENCH_TRACE");
  if (!t) return st.SkipWithError("set TTD_BENCH_TRACE");
  MemoryQuery m;
  m.range = {page << kPageShift, kPageSize};
  m.kind = AccessFilter::Access;
  m.start.window = {0, t->step_count()};
  uint64_t hits = 0;
  double secs = 0;
  for (auto _ : st) {
    auto t0 = Clock::now();
    hits = 0;
    auto s = scan_memory_accesses(*t, m, [&](const MemoryAccessView&) {
      ++hits;
      return true;
    });
    secs += seconds_since(t0);
    if (!s) return st.SkipWithError(s.error().to_string().c_str());
  }
  st.counters["hits"] = double(hits);
  st.counters["hits_per_s"] = double(hits) * double(st.iterations()) / secs;
  st.counters["hits_per_step"] = double(hits) / double(t->step_count());
  st.counters["page"] = double(page);
}

void BM_MemoryAccessEnumeration(benchmark::State& st) {
  auto t = open_env("TTD_BENCH_TRACE");
  if (!t) return st.SkipWithError("set TTD_BENCH_TRACE");
  enumerate(st, hottest_page(*t));
}
BENCHMARK(BM_MemoryAccessEnumeration)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_MemoryAccessEnumerationDense(benchmark::State& st) {
  auto t = open_env("TTD_BENCH_TRACE");
  if (!t) return st.SkipWithError("set TTD_BENCH_TRACE");
  enumerate(st, densest_page(*t));
}
BENCHMARK(BM_MemoryAccessEnumerationDense)->Unit(benchmark::kMillisecond)->Iterations(1);

struct CountAccesses : EffectVisitor {
  const StepView* step = nullptr;
  uint64_t lo = 0, hi = 0, hits = 0;
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t, uint64_t a, const uint8_t*, uint64_t n) override { hits += a < hi && lo < a + n; }
  void mem_read(uint64_t, uint64_t a, uint64_t n, const uint8_t*) override { hits += a < hi && lo < a + n; }
  void mem_unknown(uint64_t, uint64_t a, uint64_t n) override { hits += a < hi && lo < a + n; }
};

void enumerate_by_replay(benchmark::State& st, uint64_t page) {
  auto t = open_env("TTD_BENCH_TRACE");
  if (!t) return st.SkipWithError("set TTD_BENCH_TRACE");
  CountAccesses v;
  double secs = 0;
  for (auto _ : st) {
    auto t0 = Clock::now();
    v = CountAccesses{};
    v.lo = page << kPageShift;
    v.hi = v.lo + kPageSize;
    linear_scan(*t, 0, t->step_count(), v);
    secs += seconds_since(t0);
  }
  st.counters["hits"] = double(v.hits);
  st.counters["hits_per_s"] = double(v.hits) * double(st.iterations()) / secs;
}

void BM_MemoryAccessEnumerationLinearReplay(benchmark::State& st) {
  auto t = open_env("TTD_BENCH_TRACE");
  if (!t) return st.SkipWithError("set TTD_BENCH_TRACE");
  enumerate_by_replay(st, hottest_page(*t));
}
BENCHMARK(BM_MemoryAccessEnumerationLinearReplay)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_MemoryAccessEnumerationDenseLinearReplay(benchmark::State& st) {
  auto t = open_env("TTD_BENCH_TRACE");
  if (!t) return st.SkipWithError("set TTD_BENCH_TRACE");
  enumerate_by_replay(st, densest_page(*t));
}
BENCHMARK(BM_MemoryAccessEnumerationDenseLinearReplay)->Unit(benchmark::kMillisecond)->Iterations(1);

// --- registers: previous write 50 M steps back ------------------------------

void BM_RegisterPreviousWrite(benchmark::State& st) {
  auto t = open_env("TTD_BENCH_TRACE");
  if (!t) return st.SkipWithError("set TTD_BENCH_TRACE");
  const QuietRegister& q = quiet_register(*t);
  if (!q.found) return st.SkipWithError("no register written once and then not for 50 M steps");
  uint64_t hit = 0;
  for (auto _ : st) {
    auto w = previous_register_write(*t, q.reg, q.start);
    if (!w || !*w) return st.SkipWithError("no hit");
    hit = (*w)->eid;
  }
  st.SetLabel(t->arch().regs[q.reg].name);
  st.counters["from_eid"] = double(q.start);
  st.counters["steps_back"] = double(q.start - hit);
}
BENCHMARK(BM_RegisterPreviousWrite)->Unit(benchmark::kMillisecond);

struct LastRegWrite : EffectVisitor {
  const StepView* step = nullptr;
  uint16_t r = 0;
  uint64_t eid = ~0ull;
  void reg(uint32_t, uint16_t reg, const uint8_t*, uint32_t) override {
    if (reg == r) eid = step->eid;
  }
  void mem_write(uint64_t, uint64_t, const uint8_t*, uint64_t) override {}
};

void BM_RegisterPreviousWriteLinearReplay(benchmark::State& st) {
  auto t = open_env("TTD_BENCH_TRACE");
  if (!t) return st.SkipWithError("set TTD_BENCH_TRACE");
  const QuietRegister& q = quiet_register(*t);
  if (!q.found) return st.SkipWithError("no quiet register");
  for (auto _ : st) {
    LastRegWrite v;
    v.r = q.reg;
    linear_scan(*t, 0, q.start, v);
    if (v.eid != q.write_eid) return st.SkipWithError("linear replay disagrees with the query");
  }
  st.counters["steps_replayed"] = double(q.start);
}
BENCHMARK(BM_RegisterPreviousWriteLinearReplay)->Unit(benchmark::kMillisecond)->Iterations(1);

// --- calls: the call tree of the whole trace --------------------------------

void call_tree(benchmark::State& st, const char* var) {
  auto t = open_env(var);
  if (!t) return st.SkipWithError((std::string("set ") + var).c_str());
  uint64_t calls = 0;
  double secs = 0;
  CallStats stats;
  for (auto _ : st) {
    auto t0 = Clock::now();
    CallQuery q;
    q.window = {0, t->step_count()};
    auto w = CallWalker::create(t, q);
    if (!w) return st.SkipWithError(w.error().to_string().c_str());
    calls = 0;
    for (;;) {
      auto c = (*w)->next();
      if (!c) return st.SkipWithError(c.error().to_string().c_str());
      if (!*c) break;
      ++calls;
    }
    secs += seconds_since(t0);
    stats = (*w)->stats();
  }
  st.counters["calls"] = double(calls);
  st.counters["calls_per_s"] = double(calls) * double(st.iterations()) / secs;
  st.counters["steps_per_s"] = double(t->step_count()) * double(st.iterations()) / secs;
  st.counters["chunks_skipped"] = double(stats.chunks_skipped);
}

void BM_CallTreeWholeTrace(benchmark::State& st) { call_tree(st, "TTD_BENCH_TRACE"); }
BENCHMARK(BM_CallTreeWholeTrace)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_CallTreeCallHeavyTrace(benchmark::State& st) { call_tree(st, "TTD_BENCH_CALLS_TRACE"); }
BENCHMARK(BM_CallTreeCallHeavyTrace)->Unit(benchmark::kMillisecond)->Iterations(1);

// Linear replay for calls: decode every step's effects (what pairing needs
// without summaries) and nothing else: a lower bound for a replay tool.
struct Nothing : EffectVisitor {
  const StepView* step = nullptr;
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t, uint64_t, const uint8_t*, uint64_t) override {}
};

void BM_FullDecodeLinearReplay(benchmark::State& st) {
  auto t = open_env("TTD_BENCH_TRACE");
  if (!t) return st.SkipWithError("set TTD_BENCH_TRACE");
  double secs = 0;
  for (auto _ : st) {
    auto t0 = Clock::now();
    Nothing v;
    linear_scan(*t, 0, t->step_count(), v);
    secs += seconds_since(t0);
  }
  st.counters["steps_per_s"] = double(t->step_count()) * double(st.iterations()) / secs;
}
BENCHMARK(BM_FullDecodeLinearReplay)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
