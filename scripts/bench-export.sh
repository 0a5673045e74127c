#!/usr/bin/env bash
# Output speed of `ttd export` per --what and format on the loop example
# (recorded if missing): bytes written, wall and CPU seconds, MB/s of output
# by each, peak RSS. Usage: bash scripts/bench-export.sh [ITERATIONS]
# (default 1000000: about 11 M steps). The machine's load changes wall
# time; CPU time (user + sys) is what the export costs.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
TTD=build/ttd
DIR=build/bench-data
mkdir -p "$DIR"
TRACE=$DIR/loop-$N.ucir
[ -f "$TRACE" ] || "$TTD" record -o "$TRACE" -- build/examples/x86_64/loop "$N" >/dev/null
"$TTD" index "$TRACE" >/dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
printf '%-8s %-6s %12s %8s %8s %10s %10s %8s\n' what format bytes wall_s cpu_s MB/s_wall MB/s_cpu rss_MB
for what in steps mem regs calls syscalls; do
  for fmt in jsonl csv sqlite; do
    f=$OUT/out.$fmt
    /usr/bin/time -f '%e %U %S %M' -o "$OUT/time" "$TTD" export "$TRACE" --what $what --to $fmt -o "$f" 2>/dev/null
    read -r wall user sys rss <"$OUT/time"
    bytes=$(stat -c %s "$f")
    awk -v w=$what -v f=$fmt -v b="$bytes" -v wall="$wall" -v u="$user" -v s="$sys" -v r="$rss" 'BEGIN {
      cpu = u + s; if (wall == 0) wall = 0.01; if (cpu == 0) cpu = 0.01;
      printf "%-8s %-6s %12d %8.2f %8.2f %10.1f %10.1f %8.1f\n", w, f, b, wall, cpu, b / wall / 1e6, b / cpu / 1e6, r / 1024 }'
    rm -f "$f"
  done
done
