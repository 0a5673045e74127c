#!/bin/bash
# The ttd CLI around the index (issue 21): an --index that is not an index
# is refused and kept, a FIFO as the trace or as --index is refused rather
# than waited on, a dead build's temporary file is removed by the next run.
# Usage: index_cli_safety.sh TTD MAKE_CALL_PROGRAM
set -u
TTD=$1
MAKE=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect NAME EXIT REGEX CMD...: runs CMD (at most 20 s), checks its exit
# status and that its stderr matches REGEX.
expect() {
  local name=$1 want=$2 regex=$3
  shift 3
  timeout 20 "$@" >"$dir/out" 2>"$dir/err"
  local got=$?
  [ "$got" = 124 ] && { fail "$name: timed out (blocked?)"; return; }
  [ "$got" = "$want" ] || fail "$name: exit $got, want $want; stderr: $(cat "$dir/err")"
  [ -z "$regex" ] || grep -Eq -- "$regex" "$dir/err" || fail "$name: stderr does not match '$regex': $(cat "$dir/err")"
}

"$MAKE" "$dir/t.ucir" 20 >/dev/null || { echo "cannot make the trace"; exit 1; }

echo notes >"$dir/x.txt"
expect not_an_index 1 "x\.txt.*not a ttd index" "$TTD" info "$dir/t.ucir" --index "$dir/x.txt"
[ "$(cat "$dir/x.txt")" = notes ] || fail "not_an_index: x.txt was changed"

mkfifo "$dir/trace.fifo"
expect fifo_trace 1 "trace\.fifo.*FIFO" "$TTD" info "$dir/trace.fifo"

mkfifo "$dir/index.fifo"
expect fifo_index 1 "index\.fifo.*FIFO" "$TTD" info "$dir/t.ucir" --index "$dir/index.fifo"
[ -p "$dir/index.fifo" ] || fail "fifo_index: the FIFO was replaced"

mkdir "$dir/index.dir"
expect directory_index 1 "index\.dir.*directory" "$TTD" info "$dir/t.ucir" --index "$dir/index.dir"

# A build that was killed: its PID is gone.
sh -c 'exit 0' &
dead=$!
wait $dead
echo half >"$dir/t.ucir.ttdidx.tmp.$dead"
expect leftover_removed 0 "" "$TTD" info "$dir/t.ucir"
[ -e "$dir/t.ucir.ttdidx.tmp.$dead" ] && fail "leftover_removed: $dir/t.ucir.ttdidx.tmp.$dead is still there"
[ -f "$dir/t.ucir.ttdidx" ] || fail "leftover_removed: no index built"

expect keyframe_interval_range 2 "keyframe-interval" "$TTD" info "$dir/t.ucir" --keyframe-interval 8

# --breakdown: one row per part, and the parts add up to the file's size.
expect breakdown 0 "" "$TTD" index "$dir/t.ucir" --breakdown
grep -q "^step streams " "$dir/out" || fail "breakdown: no step streams row: $(cat "$dir/out")"
sum=$(awk '/^(step streams|keyframes|pages whole|page deltas|page-map segments|segment deltas|summary groups|header, tables, directory) / {s += $(NF-3)} END {print s}' "$dir/out")
[ "$sum" = "$(stat -c %s "$dir/t.ucir.ttdidx")" ] || fail "breakdown: parts add up to $sum, not the index size"

# A valid index beside a trace in a read-only folder is used, not rebuilt
# into the cache: a real read-only bind mount in a private mount namespace
# (root passes access(W_OK) anywhere else). Skipped where unshare/mount
# are not allowed.
mkdir -p "$dir/ro" "$dir/cache"
"$MAKE" "$dir/ro/t.ucir" 20 >/dev/null && "$TTD" info "$dir/ro/t.ucir" >/dev/null
if unshare -m sh -c "mount --bind '$dir/ro' '$dir/ro' && mount -o remount,bind,ro '$dir/ro'" 2>/dev/null; then
  XDG_CACHE_HOME="$dir/cache" unshare -m sh -c "mount --bind '$dir/ro' '$dir/ro' && mount -o remount,bind,ro '$dir/ro' &&
    exec '$TTD' info --verbose '$dir/ro/t.ucir'" >"$dir/out" 2>&1
  grep -q "index: *$dir/ro/t.ucir.ttdidx (reused" "$dir/out" || fail "read_only_folder: $(cat "$dir/out")"
  [ -z "$(ls -A "$dir/cache")" ] || fail "read_only_folder: an index was built into the cache"
else
  echo "read_only_folder: skipped (no unshare -m / bind mount here)"
fi

[ "$failures" = 0 ] && echo "all index CLI cases passed"
exit $((failures > 0))
