#!/usr/bin/env bash
# Fidelity battery: runs each command line of LINES natively (bash -c) and
# under `ttd record` (bash -c recorded, its children as the recorder runs
# them), and compares stdout and exit status. Prints SAME or DIFF per
# line with the recording's wall time and steps, then a count.
#
#   bash scripts/record-vs-native.sh [LINES] [TTD]
#     LINES  one shell command line per line; # starts a comment
#            (default bench/record_vs_native.lines: Debian programs,
#            Python threads, timeouts, subprocesses, pipelines)
#     TTD    the ttd binary (default build/ttd)
# Exit status: 0 when every line matched, 1 otherwise. Lines that depend
# on timing (timeouts, sleeps) compare what they print about it, never
# raw durations. Traces go to a scratch folder that is removed at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
LINES=${1:-bench/record_vs_native.lines}
TTD=$(realpath "${2:-build/ttd}")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
n=0 bad=0
while IFS= read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  n=$((n + 1))
  nat=$(cd "$WORK" && timeout 120 bash -c "$line" 2>/dev/null)
  ns=$?
  t0=$(date +%s.%N)
  rec=$(cd "$WORK" && timeout 600 "$TTD" record -o "$WORK/t.ucir" -- /bin/bash -c "$line" 2>"$WORK/err")
  rs=$?
  t1=$(date +%s.%N)
  steps=$(grep -o 'recorded [0-9]* steps' "$WORK/err" | head -1 | awk '{print $2}')
  if [ "$nat" == "$rec" ] && [ "$ns" == "$rs" ]; then r=SAME; else r=DIFF; bad=$((bad + 1)); fi
  printf '%s %7.2fs %12s  %s\n' "$r" "$(echo "$t1 - $t0" | bc)" "${steps:--}" "$line"
  if [ "$r" == DIFF ]; then
    echo "  native ($ns): $(echo "$nat" | head -c 300)"
    echo "  recorded ($rs): $(echo "$rec" | head -c 300)"
    grep -v '^recorded\|wrote\|recording goes on' "$WORK/err" | head -3 | sed 's/^/  /'
  fi
  rm -f "$WORK"/t*.ucir
done <"$LINES"
echo "$n lines, $bad differ"
[ "$bad" -eq 0 ]
