#!/usr/bin/env bash
# Output speed of `ttd export` per --what and format: bytes written, wall
# and CPU seconds, MB/s of output by each, peak RSS.
#   bash scripts/bench-export.sh [ITERATIONS]
# exports the loop example (recorded if missing; default 1000000
# iterations: about 11 M steps) whole. On a real trace, a window of it:
#   TRACE=gz.ucir FROM=20000000 UNTIL=22000000 bash scripts/bench-export.sh
# (the trace's folder must be writable for its index: symlink a shared
# trace into your own). A/B in one run: OLD=path/to/old/ttd runs the old
# binary before the new one for each row (label old/new), so both see the
# same load. The machine's load changes wall time; CPU time (user + sys)
# is what the export costs. WHAT="steps mem" limits the tables,
# FORMATS="sqlite" the formats; REPEAT=3 runs each row three times (old
# and new alternated: pairs under the same load). The load average is
# printed before and after (the machine is shared: say it with the figures).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
TTD=${TTD:-build/ttd}
DIR=build/bench-data
if [ -z "${TRACE:-}" ]; then
  mkdir -p "$DIR"
  TRACE=$DIR/loop-$N.ucir
  [ -f "$TRACE" ] || "$TTD" record -o "$TRACE" -- build/examples/x86_64/loop "$N" >/dev/null
fi
"$TTD" index "$TRACE" >/dev/null
WINDOW=()
[ -n "${FROM:-}" ] && WINDOW+=(--from "$FROM")
[ -n "${UNTIL:-}" ] && WINDOW+=(--until "$UNTIL")
BINS=("new:$TTD")
[ -n "${OLD:-}" ] && BINS=("old:$OLD" "new:$TTD")
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-4s %-8s %-6s %12s %8s %8s %10s %10s %8s\n' bin what format bytes wall_s cpu_s MB/s_wall MB/s_cpu rss_MB
for what in ${WHAT:-steps mem regs calls syscalls}; do
  for fmt in ${FORMATS:-jsonl csv sqlite}; do
    for rep in $(seq "${REPEAT:-1}"); do
      for b in "${BINS[@]}"; do
        label=${b%%:*} bin=${b#*:}
        f=$OUT/out.$fmt
        /usr/bin/time -f '%e %U %S %M' -o "$OUT/time" "$bin" export "$TRACE" --what $what --as $fmt "${WINDOW[@]}" -o "$f" 2>/dev/null
        read -r wall user sys rss <"$OUT/time"
        bytes=$(stat -c %s "$f")
        awk -v l=$label -v w=$what -v f=$fmt -v b="$bytes" -v wall="$wall" -v u="$user" -v s="$sys" -v r="$rss" 'BEGIN {
          cpu = u + s; if (wall == 0) wall = 0.01; if (cpu == 0) cpu = 0.01;
          printf "%-4s %-8s %-6s %12d %8.2f %8.2f %10.1f %10.1f %8.1f\n", l, w, f, b, wall, cpu, b / wall / 1e6, b / cpu / 1e6, r / 1024 }'
        rm -f "$f"
      done
    done
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
