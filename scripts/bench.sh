#!/usr/bin/env bash
# Records the 100 M-step loop trace and runs the benchmarks on it, then
# the real-workload corpus of issue 17 (scripts/bench-corpus.sh: one table
# row per trace). The figures go into docs/performance.md with this command line.
# Usage: bash scripts/bench.sh [ITERATIONS]   (default 10000000 ≈ 100 M steps)
#        bash scripts/bench.sh --corpus [bench-corpus.sh options]   (the corpus only)
#        TTD_BENCH_CORPUS=0 bash scripts/bench.sh ...                (without the corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --corpus ]; then
  shift
  exec bash scripts/bench-corpus.sh "$@"
fi
N=${1:-10000000}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target ttd examples
mkdir -p build/bench-data
TRACE=build/bench-data/loop-$N.ucir
[ -f "$TRACE" ] || build/ttd record -o "$TRACE" -- build/examples/x86_64/loop "$N"
build/ttd index --rebuild "$TRACE"
cmake --build build -j"$(nproc)" --target engine_bench
TTD_BENCH_TRACE=$TRACE build/bench/engine_bench --benchmark_counters_tabular=true
cmake --build build -j"$(nproc)" --target query_bench dap_bench
TTD_BENCH_TRACE=$TRACE build/bench/query_bench --benchmark_counters_tabular=true
# dap_bench drives `ttd dap` over stdio (not Google Benchmark: it prints its own table).
TTD_BENCH_TTD=build/ttd TTD_BENCH_TRACE=$TRACE TTD_BENCH_PROGRAM=build/examples/x86_64/loop \
  TTD_BENCH_SOURCE=examples/loop.c build/bench/dap_bench
if [ "${TTD_BENCH_CORPUS:-1}" != 0 ]; then
  bash scripts/bench-corpus.sh   # about 15-30 minutes: records six traces (1.1 G steps the longest) unless kept
fi
echo "gdbstub figures: bash scripts/bench-stub.sh; format import: bash scripts/bench-formats.sh"
