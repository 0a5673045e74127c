#!/usr/bin/env bash
# The DuckDB recipe, end to end: export the calls of each trace, load them
# into DuckDB, write Parquet, ask which runs had FUNCTION return -1.
#   examples/duckdb/recipe.sh OUT_DIR FUNCTION TRACE [TRACE ...]
# Environment: TTD (default build/ttd), NODE_PATH (default build/npm/node_modules,
# where scripts/install-duckdb-node.sh puts @duckdb/node-api).
# Exit 77 when node or DuckDB's Node package is missing (a test's "skipped").
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TTD=${TTD:-$ROOT/build/ttd}
export NODE_PATH=${NODE_PATH:-$ROOT/build/npm/node_modules}
if [ $# -lt 3 ]; then
  echo "usage: $0 OUT_DIR FUNCTION TRACE [TRACE ...]" >&2
  exit 2
fi
OUT=$1 FUNC=$2
shift 2
if ! command -v node >/dev/null; then
  echo "recipe: skipped: node is not installed" >&2
  exit 77
fi
if ! node -e "require('@duckdb/node-api')" 2>/dev/null; then
  echo "recipe: skipped: DuckDB's Node package is not in $NODE_PATH (bash scripts/install-duckdb-node.sh; it needs the npm registry once)" >&2
  exit 77
fi
mkdir -p "$OUT"
runs=()
for t in "$@"; do
  name=$(basename "$t")
  name=${name%.*}
  "$TTD" export "$t" --what calls --to jsonl -o "$OUT/$name.calls.jsonl"
  runs+=("$name=$OUT/$name.calls.jsonl")
done
node "$HERE/fleet.js" "$OUT/calls.parquet" "$FUNC" "${runs[@]}"
