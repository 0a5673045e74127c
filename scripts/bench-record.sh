#!/usr/bin/env bash
# Recording speed on Debian's own programs (issue 16): records each program
# on generated input, checks its output equals the native run's, and prints
# steps, wall time, CPU time, steps/s and the native run's time beside it.
#
#   bash scripts/bench-record.sh [WORDS]      (WORDS: lines of input, default 200000)
#
# Columns: wall_s and M/s_wall are the recording's wall clock; cpu_s is the
# ttd process's CPU time (user + system, every thread: the emulator and the
# trace writer), and M/s_cpu = steps / cpu_s is what one core does when it
# does nothing else; emu_cpu_s is the emulator thread's CPU alone (ttd
# record's own figure). On a machine shared with other work the CPU columns
# are the ones to compare.
#
# Environment: TTD_BUILD_DIR (default build); TTD_BENCH_CPUS, a CPU list for
# taskset (e.g. 0: recorder and trace writer share one core; default: no
# pinning); TTD_BENCH_TTD, the ttd binary (default $TTD_BUILD_DIR/ttd);
# TTD_BENCH_ONLY, a regular expression: only the programs whose name matches.
# Traces go to a scratch folder that is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${TTD_BUILD_DIR:-build}
TTD=${TTD_BENCH_TTD:-$BUILD/ttd}
WORDS=${1:-200000}
ONLY=${TTD_BENCH_ONLY:-.}
PIN=()
if [ -n "${TTD_BENCH_CPUS:-}" ]; then PIN=(taskset -c "$TTD_BENCH_CPUS"); fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 - "$WORK/words.txt" "$WORDS" <<'PY'
import random, sys
r = random.Random(1)
with open(sys.argv[1], "w") as f:
    for _ in range(int(sys.argv[2])):
        f.write("".join(chr(97 + r.randrange(26)) for _ in range(3 + r.randrange(9))) + "\n")
PY
# sqlite3: a 20,000-row insert script, an index, a query (stdin).
python3 - "$WORK/insert.sql" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("create table t(a integer primary key, b text, c real);\nbegin;\n")
    for i in range(20000):
        f.write("insert into t values(%d, 'row %d %s', %d.5);\n" % (i, i, "x" * (i % 37), i * 7 % 1000))
    f.write("commit;\ncreate index tb on t(b);\nselect count(*), sum(a), max(b), avg(c) from t;\n")
PY
printf '%-26s %11s %8s %9s %7s %9s %9s %9s %s\n' program steps wall_s "M/s_wall" cpu_s "M/s_cpu" emu_cpu_s native_s output
run() {
  local name=$1 stdin=$2; shift 2
  [[ $name =~ $ONLY ]] || return 0
  local t0 t1 native
  t0=$(date +%s.%N); "$@" <"$stdin" >"$WORK/native.out" 2>&1 || true; t1=$(date +%s.%N)
  native=$(echo "$t1 - $t0" | bc)
  t0=$(date +%s.%N)
  "${PIN[@]}" /usr/bin/time -f '%U %S' -o "$WORK/time" "$TTD" record -o "$WORK/t.ucir" -- "$@" \
    <"$stdin" >"$WORK/rec.out" 2>"$WORK/rec.err" || true
  t1=$(date +%s.%N)
  local steps wall same cpu emu
  steps=$(grep -o 'recorded [0-9]* steps' "$WORK/rec.err" | awk '{print $2}')
  emu=$(grep -o 'emulator thread [0-9.]* s CPU' "$WORK/rec.err" | awk '{print $3}')
  cpu=$(awk '{print $1 + $2}' "$WORK/time")
  wall=$(echo "$t1 - $t0" | bc)
  cmp -s "$WORK/native.out" "$WORK/rec.out" && same=identical || same=DIFFERENT
  printf '%-26s %11s %8.2f %9.1f %7.2f %9.1f %9s %9.3f %s\n' "$name" "$steps" "$wall" \
    "$(echo "$steps / $wall / 1000000" | bc -l)" "$cpu" "$(echo "$steps / $cpu / 1000000" | bc -l)" "$emu" \
    "$native" "$same"
  rm -f "$WORK/t.ucir"
}
W=$WORK/words.txt
run "sort" /dev/null /usr/bin/sort "$W"
run "sha256sum" /dev/null /usr/bin/sha256sum "$W"
run "gzip -c" /dev/null /usr/bin/gzip -c "$W"
run "xz -c" /dev/null /usr/bin/xz -c "$W"
run "sqlite3 (20,000 inserts)" "$WORK/insert.sql" /usr/bin/sqlite3 :memory:
run "python3 -c sorted(words)" /dev/null /usr/bin/python3 -c "import sys; w=open(sys.argv[1]).read().split(); print(len(w), sorted(w)[len(w)//2])" "$W"
run "loop (examples, static)" /dev/null "$BUILD/examples/x86_64/loop" 1000000
