#!/usr/bin/env bash
# ctest bench_corpus_quick: runs every recipe of scripts/bench-corpus.sh at
# its --quick size and fails unless each trace's row has every column
# filled (bench/corpus_table.py --check), so the recipes and the table
# cannot rot between full runs. The scratch folder is in the build tree and
# wiped at the start as well as the end: a run killed by ctest's timeout
# leaves nothing behind for long.
#   quick_test.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "${1:?usage: quick_test.sh BUILD_DIR}" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$BUILD/bench-data/corpus-quick-ctest
rm -rf "$WORK"
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
TTD_BUILD_DIR=$BUILD TTD_BENCH_DATA=$WORK bash "$SRC/scripts/bench-corpus.sh" --quick --no-build
