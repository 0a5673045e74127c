#!/usr/bin/env bash
# Benchmarks of `ttd serve` (issue 3); the figures go into docs/performance.md,
# section "gdbstub (issue 3)", with this command line. See bench/stub/bench_stub.py
# for what is measured and how.
#   (a) 1000 stepi + reverse-stepi round trips through real gdb (target <= 2 s)
#   (b) reverse-continue from the end of the 100 M-step loop trace to a
#       breakpoint near its start, timed at the stub (target <= 100 ms)
#   (c) reverse-continue across a whole run: gdb's `record full` vs ttd
#
# Usage: bash scripts/bench-stub.sh [BUILD_DIR]          (default: build)
#   TRACE=...  the 100 M-step trace (default build/bench-data/loop-10000000.ucir,
#              recorded here from EXE if missing, as scripts/bench.sh does)
#   EXE=...    the loop example that trace was recorded from
#              (default BUILD_DIR/examples/x86_64/loop)
#   SIZES=...  loop counts for (c) (default 2600,26000; 26000 ≈ 290 k instructions)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
N=10000000
TRACE=${TRACE:-build/bench-data/loop-$N.ucir}
EXE=${EXE:-$BUILD/examples/x86_64/loop}
SIZES=${SIZES:-2600,26000}

[ -f "$BUILD/build.ninja" ] || cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target ttd examples
TTD=$BUILD/ttd
command -v gdb >/dev/null || { echo "bench-stub: gdb is not installed" >&2; exit 1; }

if [ ! -f "$TRACE" ]; then
  mkdir -p "$(dirname "$TRACE")"
  "$TTD" record -o "$TRACE" -- "$EXE" "$N"
fi
"$TTD" index "$TRACE" | tail -4     # built once (reused when valid), before anything is timed

echo "uptime: $(uptime)"
python3 bench/stub/bench_stub.py --ttd "$TTD" --exe "$EXE" --trace "$TRACE" --record-full-sizes "$SIZES"
echo "uptime: $(uptime)"
