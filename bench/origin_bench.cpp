// Backward dataflow (engine/query/origin.h) on the 100 M-step loop trace:
// one hop (the last write of rax 50 M steps in and that instruction's
// inputs) and a depth-20 chain (breadth 1: the data input of each step),
// and the same depth with the default breadth (a DAG). Targets (issue
// 20): one hop <= 1 ms, depth 20 <= 50 ms.
//   TTD_BENCH_TRACE   the loop trace (scripts/bench.sh)
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "engine/query/origin.h"
#include "engine/query/register_history.h"

using namespace ttd;
using namespace ttd::query;

namespace {

constexpr uint64_t kDistance = 50'000'000;

std::shared_ptr<Trace> open_env() {
  static std::shared_ptr<Trace> t;
  const char* p = std::getenv("TTD_BENCH_TRACE");
  if (!t && p && *p)
    if (auto r = Trace::open(p)) t = *r;
  return t;
}

void run(benchmark::State& st, uint32_t depth, uint32_t breadth) {
  auto t = open_env();
  if (!t) return st.SkipWithError("set TTD_BENCH_TRACE to a trace of at least 50 M steps");
  if (t->step_count() < kDistance) return st.SkipWithError("the trace is shorter than 50 M steps");
  OriginQuery q;
  q.loc.kind = OriginLocation::Kind::Register;
  q.loc.reg = *resolve_register(*t, "rax");
  q.at = kDistance;
  q.depth = depth;
  q.breadth = breadth;
  q.max_nodes = kMaxOriginNodes;
  size_t nodes = 0;
  for (auto _ : st) {
    auto g = trace_origin(*t, q);
    if (!g) return st.SkipWithError(g.error().to_string().c_str());
    nodes = g->nodes.size();
  }
  st.counters["nodes"] = double(nodes);
  st.counters["at"] = double(q.at);
}

void BM_OriginOneHop(benchmark::State& st) { run(st, 1, kDefaultOriginBreadth); }
void BM_OriginChainDepth20(benchmark::State& st) { run(st, 20, 1); }
void BM_OriginDagDepth20(benchmark::State& st) { run(st, 20, kDefaultOriginBreadth); }

}  // namespace

BENCHMARK(BM_OriginOneHop)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OriginChainDepth20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OriginDagDepth20)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
