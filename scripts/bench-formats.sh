#!/usr/bin/env bash
# Format import throughput (issues 4 and 5): generates one large trace per
# format with the committed generators, then times the import of each.
#
#   bash scripts/bench-formats.sh [--reader-only] [--runs N]
#
# Environment: TTD_BUILD_DIR (default build), TTD_BENCH_DATA (default
# $TTD_BUILD_DIR/bench-data), TTD_BENCH_MB (default 520: MiB per trace).
#
# Two figures per format, both in MiB/s of the trace's size on disk (for
# the Pin-tool trace, of its execution table exec.vtable):
#   reader         - the format's reader decodes the whole file into the
#                    step stream, delivered to a sink that only counts
#                    (tests/import_speed/time_import: the registry's reader,
#                    the one `ttd index` uses);
#   reader+index   - `ttd index --rebuild`: the same reader feeding the
#                    engine's index builder, index written to disk.
# Each is given by the wall clock and by CPU time (user + sys of the
# process): on a shared machine the wall clock also counts waiting for a
# core, CPU time is what the import costs. The best of N runs is kept
# (default 3, for the reader and for reader+index alike), page cache warm.
# The targets of issues 4 and 5 are in MB/s (10^6 bytes), so the last
# column gives reader+index by the wall clock in MB/s too.
#
# Generated traces (about 2.2 GB) are kept in the data folder and reused;
# remove the folder yourself when done. The only thing the script deletes
# is the index it builds for the reader+index figure, in a scratch folder
# of its own (indexes of these traces reach 1.2 GB).
set -euo pipefail
cd "$(dirname "$0")/.."

READER_ONLY=0
RUNS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --reader-only) READER_ONLY=1 ;;
    --runs) RUNS=$2; shift ;;
    *) echo "usage: $0 [--reader-only] [--runs N]" >&2; exit 2 ;;
  esac
  shift
done

BUILD=${TTD_BUILD_DIR:-build}
DATA=${TTD_BENCH_DATA:-$BUILD/bench-data}
MB=${TTD_BENCH_MB:-520}
JOBS=${TTD_JOBS:-$(nproc)}

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target ttd time_import gen_xray gen_tenet gen_tt6 gen_umtrace
mkdir -p "$DATA"

T=$BUILD/tests
XRAY=$DATA/bench-$MB.xray
TENET=$DATA/bench-$MB.tenet
TT6=$DATA/bench-$MB.tt6
UMT=$DATA/bench-$MB.umtrace

# Generate what is missing (a generator writes to NAME.part first, so an
# interrupted run never leaves a short trace behind to be reused).
generate() {  # OUT COMMAND... (COMMAND writes OUT.part)
  local out=$1; shift
  [ -e "$out" ] && return 0
  echo "generating $out"
  "$@"
  mv "$out.part" "$out"
}
generate "$XRAY" "$T/formats_xray/gen_xray" "$XRAY.part" "$MB" 16 16384
generate "$TENET" "$T/formats_tenet/gen_tenet" "$TENET.part" "$MB"
generate "$TT6" "$T/formats_tt6/gen_tt6" "$TT6.part" "$MB"
generate "$UMT" "$T/formats_umtrace/gen_umtrace" "$UMT.part" "$MB"

size_of() { stat -c %s "$1"; }
SCRATCH=
trap '[ -z "$SCRATCH" ] || rm -rf "$SCRATCH"' EXIT

# Runs COMMAND, prints "wall cpu" in seconds (cpu = user + sys of the
# child); on failure shows the command's own messages.
timed() {
  local log t
  log=$(mktemp)
  if ! t=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>"$log"; } 2>&1 ); then
    echo "failed: $*" >&2
    cat "$log" >&2
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
  awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$t"
}

# Best (lowest CPU) of N runs: "wall cpu".
best_of() {  # N COMMAND...
  local n=$1; shift
  for _ in $(seq "$n"); do timed "$@"; done | sort -k2,2g | head -1
}

rate() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.0f", b / 1048576 / s }'; }
rate_mb() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.0f", b / 1e6 / s }'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

printf '\nload: %s\n' "$(uptime)"
printf '%-8s %6s   %-33s   %-33s   %s\n' "" "" "reader only (time_import)" "reader + index (ttd index)" ""
printf '%-8s %6s   %7s %6s %7s %6s   %7s %6s %7s %6s   %s\n' format MiB "wall s" MiB/s "cpu s" MiB/s \
  "wall s" MiB/s "cpu s" MiB/s "reader+index wall MB/s, target"
bench() {  # NAME TRACE BYTES TARGET
  local name=$1 trace=$2 bytes=$3 target=$4 r w c iw ic
  r=$(best_of "$RUNS" "$BUILD/tests/import_speed/time_import" "$trace" --bytes "$bytes")
  read -r w c <<<"$r"
  local index_cols mb=-
  index_cols=$(printf '%7s %6s %7s %6s' - - - -)
  if [ "$READER_ONLY" = 0 ]; then
    # The index goes to a scratch folder of this run, removed right after:
    # only the import is measured, and indexes can be larger than traces.
    SCRATCH=$(mktemp -d "$DATA/index-run.XXXXXX")
    r=$(best_of "$RUNS" "$BUILD/ttd" index --rebuild --index "$SCRATCH/index.ttdidx" "$trace")
    rm -rf "$SCRATCH"
    SCRATCH=
    read -r iw ic <<<"$r"
    index_cols=$(printf '%7.2f %6s %7.2f %6s' "$iw" "$(rate "$bytes" "$iw")" "$ic" "$(rate "$bytes" "$ic")")
    mb=$(rate_mb "$bytes" "$iw")
  fi
  printf '%-8s %6s   %7.2f %6s %7.2f %6s   %s   %s MB/s, target >= %s\n' "$name" "$(mib "$bytes")" \
    "$w" "$(rate "$bytes" "$w")" "$c" "$(rate "$bytes" "$c")" "$index_cols" "$mb" "$target"
}
bench xray "$XRAY" "$(size_of "$XRAY")" 100
bench tenet "$TENET" "$(size_of "$TENET")" 50
bench umtrace "$UMT" "$(size_of "$UMT/exec.vtable")" 200
bench tt6 "$TT6" "$(size_of "$TT6")" 300
printf 'load: %s\n' "$(uptime)"
