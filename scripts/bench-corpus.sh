#!/usr/bin/env bash
# The real-workload benchmark corpus of issue 17: records (or generates) each
# trace from a recipe at benchmark time - nothing binary is in git - and
# prints one table row per trace with every figure of the issue's table and
# targets, then the targets met or missed per trace.
#
#   bash scripts/bench-corpus.sh [--quick] [--only NAME,...] [--no-build] [--keep-index]
#
#   --quick       tiny sizes (about 90 s of CPU, most of it recording python3's
#                 start-up; the ctest bench_corpus_quick)
#   --only        measure these traces only (names below; the reference
#                 1,000-step query is always measured)
#   --no-build    use the binaries already in the build folder
#   --keep-index  leave each trace's index in the data folder
# Environment: TTD_BUILD_DIR (default build), TTD_BENCH_DATA (default
# BUILD/bench-data/corpus, or corpus-quick with --quick), TTD_JOBS, and
# TTD_CORPUS_<SIZE> for any of the sizes below (SQL_ROWS, GZIP_KIB, PY_N,
# SCATTER_N, TENET_MIB, LOOP_N).
#
# The corpus (full size / --quick), all UCIR from our own `ttd record`
# except the Tenet trace, which is generated:
#   sqlite   /usr/bin/sqlite3 :memory: running generated SQL: 40,000 / 300
#            rows inserted, two indexes built, range and group-by queries
#   gzip     /usr/bin/gzip -c of 512 / 16 KiB of generated text
#   python3  /usr/bin/python3 -I bench/corpus/python_run.py 5000 / 200 (-I -S:
#            without site, start-up is 21 M steps instead of 60 M)
#   scatter  bench/corpus/scatter.c (musl static, -O0): 2,000,000 / 20,000
#            one-byte writes all over a 64 KiB buffer
#   tenet    tests/formats_tenet/gen_tenet, 520 / 1 MiB: the trace of the
#            format-import benchmark that writes ~195,000 pages
#   loop-1g  examples/loop.c with 100,000,000 / 20,000 iterations
#            (1.1 G steps, 3.8 GB of trace, about 3 GB of index at full size)
# and the reference for "query <= 3x the same query on a 1,000-step trace":
# bench/corpus/short.c 11 (about 1,050 steps).
#
# Traces stay in the data folder and are reused by the next run (delete it
# to record afresh); each index is built twice (one core, then both: timed)
# and removed after its trace is measured unless --keep-index. What each
# figure is: bench/corpus_row.py (whole-process, through the CLI) and
# bench/corpus_probe.cpp (seeks and reverse-continue, in process).
set -euo pipefail
cd "$(dirname "$0")/.."

QUICK=0 ONLY="" BUILD_FIRST=1 KEEP=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --only) ONLY=${2:?--only needs a list of names}; shift ;;
    --no-build) BUILD_FIRST=0 ;;
    --keep-index) KEEP=(--keep-index) ;;
    *) echo "usage: $0 [--quick] [--only NAME,...] [--no-build] [--keep-index]" >&2; exit 2 ;;
  esac
  shift
done

BUILD=${TTD_BUILD_DIR:-build}
JOBS=${TTD_JOBS:-$(nproc)}
if [ "$QUICK" = 1 ]; then
  DATA=${TTD_BENCH_DATA:-$BUILD/bench-data/corpus-quick}
  SQL_ROWS=300 GZIP_KIB=16 PY_N=200 PY_FLAGS=(-I -S) SCATTER_N=20000 TENET_MIB=1 LOOP_N=20000
  MEASURE=(--runs 2 --seeks 100 --reverse-runs 2)
  MIN_FREE_GB=1
else
  DATA=${TTD_BENCH_DATA:-$BUILD/bench-data/corpus}
  SQL_ROWS=40000 GZIP_KIB=512 PY_N=5000 PY_FLAGS=(-I) SCATTER_N=2000000 TENET_MIB=520 LOOP_N=100000000
  MEASURE=(--runs 5 --seeks 2000 --reverse-runs 5)
  MIN_FREE_GB=12
fi
# Any size can be set from outside, e.g. TTD_CORPUS_SQL_ROWS=4000 (a run
# that cannot afford the full size; the steps column shows what was run).
for v in SQL_ROWS GZIP_KIB PY_N SCATTER_N TENET_MIB LOOP_N; do
  o=TTD_CORPUS_$v
  if [ -n "${!o:-}" ]; then
    [[ ${!o} =~ ^[1-9][0-9]*$ ]] || { echo "bench-corpus: $o must be a positive number, not '${!o}'" >&2; exit 2; }
    printf -v "$v" '%s' "${!o}"
  fi
done
REF_N=11  # iterations of bench/corpus/short.c: about 1,050 steps
ALL_NAMES=sqlite,gzip,python3,scatter,tenet,loop-1g
NAMES=${ONLY:-$ALL_NAMES}
for n in ${NAMES//,/ }; do
  case ",$ALL_NAMES," in *",$n,"*) ;; *) echo "bench-corpus: unknown trace '$n' (known: $ALL_NAMES)" >&2; exit 2 ;; esac
done

if [ "$BUILD_FIRST" = 1 ]; then
  [ -f "$BUILD/build.ninja" ] || cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD" -j"$JOBS" --target ttd corpus_probe gen_tenet handoff_probe
fi
TTD=$BUILD/ttd PROBE=$BUILD/bench/corpus_probe GEN_TENET=$BUILD/tests/formats_tenet/gen_tenet
for f in "$TTD" "$PROBE" "$GEN_TENET"; do
  [ -x "$f" ] || { echo "bench-corpus: $f is missing (build it, or drop --no-build)" >&2; exit 1; }
done
for f in /usr/bin/sqlite3 /usr/bin/gzip /usr/bin/python3 taskset; do
  command -v "$f" >/dev/null || { echo "bench-corpus: $f is not installed" >&2; exit 1; }
done
CC=$(command -v musl-gcc || command -v cc) || { echo "bench-corpus: no C compiler (musl-gcc or cc)" >&2; exit 1; }

mkdir -p "$DATA/bin"
free_gb=$(df -P -BG "$DATA" | awk 'NR == 2 { sub("G", "", $4); print $4 }')
if [ "$free_gb" -lt "$MIN_FREE_GB" ]; then
  echo "bench-corpus: only ${free_gb} GB free under $DATA; the corpus needs about $MIN_FREE_GB GB" >&2
  exit 1
fi

# Programs built from source at benchmark time, as examples/CMakeLists.txt
# builds the examples (static, -O0, musl when present).
build_c() {  # SOURCE OUT
  [ "$2" -nt "$1" ] && return 0
  "$CC" -static -g -O0 -fno-omit-frame-pointer -o "$2" "$1"
}
build_c examples/loop.c "$DATA/bin/loop"
build_c bench/corpus/scatter.c "$DATA/bin/scatter"
build_c bench/corpus/short.c "$DATA/bin/short"

# record NAME TRACE -- PROGRAM ARGS...: records into TRACE unless it is there
# (written as TRACE.part first: an interrupted run leaves no short trace to reuse).
record() {
  local name=$1 trace=$2; shift 3
  [ -f "$trace" ] && return 0
  echo "bench-corpus: recording $name: $*" >&2
  local t0 t1 status=0
  t0=$(date +%s.%N)
  "$TTD" record -o "$trace.part" -- "$@" >"$trace.stdout" 2>"$trace.record.log" </dev/null || status=$?
  t1=$(date +%s.%N)
  if [ ! -s "$trace.part" ]; then
    echo "bench-corpus: recording $name failed (exit status $status): $(tail -3 "$trace.record.log")" >&2
    rm -f "$trace.part"
    return 1
  fi
  # The program's own exit status is not ours to judge (sqlite3 meets
  # mremap's ENOSYS and carries on); the log says what happened.
  echo "bench-corpus: recorded $name in $(echo "$t1 - $t0" | bc) s (exit status $status):" \
       "$(grep -o 'recorded [0-9]* steps' "$trace.record.log" || echo '?')" >&2
  mv "$trace.part" "$trace"
}

trace_of() {  # NAME -> the trace's path, recorded or generated if missing
  local name=$1 t
  case "$name" in
    sqlite)
      t=$DATA/sqlite-$SQL_ROWS.ucir
      [ -f "$t" ] || python3 bench/corpus/gen_inputs.py sql "$DATA/sqlite-$SQL_ROWS.sql" "$SQL_ROWS"
      record "$name" "$t" -- /usr/bin/sqlite3 :memory: ".read $DATA/sqlite-$SQL_ROWS.sql" ;;
    gzip)
      t=$DATA/gzip-$GZIP_KIB.ucir
      [ -f "$t" ] || python3 bench/corpus/gen_inputs.py text "$DATA/gzip-$GZIP_KIB.txt" "$GZIP_KIB"
      record "$name" "$t" -- /usr/bin/gzip -c "$DATA/gzip-$GZIP_KIB.txt" ;;
    python3)
      t=$DATA/python3-$PY_N.ucir
      record "$name" "$t" -- /usr/bin/python3 "${PY_FLAGS[@]}" bench/corpus/python_run.py "$PY_N" ;;
    scatter)
      t=$DATA/scatter-$SCATTER_N.ucir
      record "$name" "$t" -- "$DATA/bin/scatter" "$SCATTER_N" ;;
    tenet)
      t=$DATA/tenet-$TENET_MIB.tenet
      if [ ! -f "$t" ]; then
        echo "bench-corpus: generating $t" >&2
        "$GEN_TENET" "$t.part" "$TENET_MIB" >&2 && mv "$t.part" "$t"
      fi ;;
    loop-1g)
      t=$DATA/loop-$LOOP_N.ucir
      record "$name" "$t" -- "$DATA/bin/loop" "$LOOP_N" ;;
    ref-1k)
      t=$DATA/short-$REF_N.ucir
      record "$name" "$t" -- "$DATA/bin/short" "$REF_N" ;;
  esac
  echo "$t"
}

ROWS=$DATA/rows.jsonl
: >"$ROWS"
# The CPUs' relative speeds, before and after: a VM's vCPUs can differ for
# a while, which caps the two-core ratio (bench/cpu_speeds.py).
HANDOFF=()
[ -x "$BUILD/bench/handoff_probe" ] && HANDOFF=(--handoff "$BUILD/bench/handoff_probe")
python3 bench/cpu_speeds.py --json "${HANDOFF[@]}" | sed 's/^{/{"when": "before", /' >>"$ROWS"
echo "# bench-corpus $([ "$QUICK" = 1 ] && echo --quick) at $(date -u '+%Y-%m-%d %H:%M UTC'), commit" \
     "$(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
t_start=$(date +%s)
# measure NAME [corpus_row options]: one JSON row; a failure is a row too.
measure() {
  local name=$1 trace; shift
  if ! trace=$(trace_of "$name"); then
    echo "{\"name\": \"$name\", \"error\": \"recording failed (see the messages above)\"}" >>"$ROWS"
    return 0
  fi
  echo "bench-corpus: measuring $name ($trace)" >&2
  python3 bench/corpus_row.py --ttd "$TTD" --probe "$PROBE" --name "$name" --trace "$trace" --work "$DATA" \
    "$@" >>"$ROWS" || true
}
measure ref-1k "${MEASURE[@]}" --query-only
for n in ${NAMES//,/ }; do
  measure "$n" "${MEASURE[@]}" "${KEEP[@]}"
done
python3 bench/cpu_speeds.py --json "${HANDOFF[@]}" | sed 's/^{/{"when": "after", /' >>"$ROWS"
echo "# took $(( $(date +%s) - t_start )) s; load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 bench/corpus_table.py "$ROWS" --check "$NAMES"
