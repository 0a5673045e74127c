#!/usr/bin/env bash
# The DuckDB recipe (examples/duckdb) on three runs of tests/diff/threshold.c
# recorded here: inputs 3, 7 and 9; check() returns -1 for 7 and 9 only.
# Skipped (exit 77) when node or DuckDB's Node package is missing.
# Usage: test_duckdb_recipe.sh TTD SOURCE_ROOT NODE_MODULES
set -euo pipefail
TTD=$(realpath "$1") ROOT=$2
export NODE_PATH=$3 TTD
TMP=$(mktemp -d /tmp/ttd-duckdb-test-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
CC=$(command -v musl-gcc || command -v gcc)
"$CC" -static -O0 -o "$TMP/threshold" "$ROOT/tests/diff/threshold.c"
for n in 3 7 9; do
  (cd "$TMP" && "$TTD" record -o "run$n.ucir" -- ./threshold $n >/dev/null)
done
FUNC=0x$(nm "$TMP/threshold" | awk '$3 == "check" { print $1 }')
set +e
"$ROOT/examples/duckdb/recipe.sh" "$TMP/out" "$FUNC" "$TMP/run3.ucir" "$TMP/run7.ucir" "$TMP/run9.ucir" >"$TMP/log" 2>&1
rc=$?
set -e
cat "$TMP/log"
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || { echo "FAIL: recipe exited $rc"; exit 1; }
[ -s "$TMP/out/calls.parquet" ] || { echo "FAIL: no Parquet file"; exit 1; }
head -c 4 "$TMP/out/calls.parquet" | grep -q PAR1 || { echo "FAIL: not a Parquet file"; exit 1; }
grep -q "^  run7: 1 time" "$TMP/log" && grep -q "^  run9: 1 time" "$TMP/log" || { echo "FAIL: runs 7 and 9 not found"; exit 1; }
if grep -q "run3:" "$TMP/log"; then echo "FAIL: run3 listed"; exit 1; fi
grep -q "of 3 runs" "$TMP/log" || { echo "FAIL: not all runs loaded"; exit 1; }
echo "ok: runs 7 and 9 (not 3) had check() return -1, from Parquet"
