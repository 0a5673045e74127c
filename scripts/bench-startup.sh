#!/usr/bin/env bash
# One-shot query start-up (issue 17: `ttd query --at EID` <= 20 ms whole
# process): perf stat -r RUNS of `ttd --version`, `ttd info` and
# `ttd query --at STEPS/2 --json` on a short recorded trace, for one ttd or
# two (A/B, interleaved so both see the same machine load).
#
#   scripts/bench-startup.sh [--runs N] [--trace TRACE@EID]... [TTD [OLD_TTD]]
#
# --trace adds `ttd query TRACE --at EID --json` on a trace of your own
# (index built beforehand, e.g. the corpus traces symlinked into a folder
# you can write); repeatable.
# TTD defaults to build/ttd. Keep a copy of the old binary to compare
# (cp build/ttd /tmp/ttd-old before rebuilding). The trace is
# bench/corpus/short.c 11 (about 1,000 steps, the corpus's ref-1k),
# recorded with TTD into a temporary folder that is removed at the end.
# Prints task-clock (CPU ms) and elapsed (wall ms) with perf's spread:
# on a shared machine compare CPU; wall includes waiting for a core.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=20
TRACES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --trace) TRACES+=("$2"); shift 2 ;;
    *) break ;;
  esac
done
for t in "${TRACES[@]}"; do
  [ -r "${t%@*}" ] && [ "${t##*@}" != "$t" ] || { echo "bench-startup: --trace wants a readable TRACE@EID, got '$t'" >&2; exit 1; }
done
TTD=${1:-build/ttd}
OLD=${2:-}
command -v perf >/dev/null || { echo "bench-startup: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
for t in "$TTD" $OLD; do
  [ -x "$t" ] || { echo "bench-startup: $t is not an executable" >&2; exit 1; }
done
CC=$(command -v musl-gcc || command -v cc) || { echo "bench-startup: no C compiler" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$CC" -static -O0 -o "$WORK/short" bench/corpus/short.c
"$TTD" record -o "$WORK/short.ucir" -- "$WORK/short" 11 >/dev/null 2>"$WORK/record.log" </dev/null || true
[ -s "$WORK/short.ucir" ] || { echo "bench-startup: recording failed: $(tail -3 "$WORK/record.log")" >&2; exit 1; }
STEPS=$("$TTD" index "$WORK/short.ucir" | awk '/^steps:/ { print $2 }')
AT=$((STEPS / 2))

echo "# bench-startup at $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
     "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $STEPS-step trace, $RUNS runs each"
measure() {  # LABEL TTD ARGS...
  local label=$1; shift
  perf stat -r "$RUNS" -e task-clock "$@" 2>"$WORK/stat" >/dev/null
  awk -v label="$label" '
    /task-clock/ { cpu = sprintf("%.2f ms (+- %s)", $1, $(NF - 1)) }
    /seconds time elapsed/ { wall = sprintf("%.2f ms (+- %s)", $1 * 1000, $(NF - 1)) }
    END { printf "%-46s CPU %-22s wall %s\n", label, cpu, wall }' "$WORK/stat"
}
QUERIES=("--version" "info $WORK/short.ucir" "query $WORK/short.ucir --at $AT --json")
for t in "${TRACES[@]}"; do QUERIES+=("query ${t%@*} --at ${t##*@} --json"); done
for args in "${QUERIES[@]}"; do
  # shellcheck disable=SC2086
  measure "new: ttd ${args/$WORK\//}" "$TTD" $args
  if [ -n "$OLD" ]; then
    # shellcheck disable=SC2086
    measure "old: ttd ${args/$WORK\//}" "$OLD" $args
  fi
done
