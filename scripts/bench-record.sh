#!/usr/bin/env bash
# Recording speed on Debian's own programs (issue 16): records each program
# on generated input, checks its output equals the native run's, and prints
# steps, wall time, steps/s and the native run's time beside it.
#
#   bash scripts/bench-record.sh [WORDS]      (WORDS: lines of input, default 200000)
#
# Environment: TTD_BUILD_DIR (default build). Traces go to a scratch folder
# that is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${TTD_BUILD_DIR:-build}
TTD=$BUILD/ttd
WORDS=${1:-200000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 - "$WORK/words.txt" "$WORDS" <<'PY'
import random, sys
r = random.Random(1)
with open(sys.argv[1], "w") as f:
    for _ in range(int(sys.argv[2])):
        f.write("".join(chr(97 + r.randrange(26)) for _ in range(3 + r.randrange(9))) + "\n")
PY
printf '%-28s %12s %9s %12s %10s %s\n' program steps wall_s "steps/s" native_s output
run() {
  local name=$1; shift
  local t0 t1 native
  t0=$(date +%s.%N); "$@" >"$WORK/native.out" 2>&1 || true; t1=$(date +%s.%N)
  native=$(echo "$t1 - $t0" | bc)
  t0=$(date +%s.%N)
  "$TTD" record -o "$WORK/t.ucir" -- "$@" >"$WORK/rec.out" 2>"$WORK/rec.err" || true
  t1=$(date +%s.%N)
  local steps wall same
  steps=$(grep -o 'recorded [0-9]* steps' "$WORK/rec.err" | awk '{print $2}')
  wall=$(echo "$t1 - $t0" | bc)
  cmp -s "$WORK/native.out" "$WORK/rec.out" && same=identical || same=DIFFERENT
  printf '%-28s %12s %9.2f %12.0f %10.3f %s\n' "$name" "$steps" "$wall" "$(echo "$steps / $wall" | bc -l)" "$native" "$same"
  rm -f "$WORK/t.ucir"
}
run "sort" /usr/bin/sort "$WORK/words.txt"
run "sha256sum" /usr/bin/sha256sum "$WORK/words.txt"
run "gzip -c" /usr/bin/gzip -c "$WORK/words.txt"
run "python3 -c sorted(words)" /usr/bin/python3 -c "import sys; w=open(sys.argv[1]).read().split(); print(len(w), sorted(w)[len(w)//2])" "$WORK/words.txt"
run "loop (examples, static)" "$BUILD/examples/x86_64/loop" 1000000
