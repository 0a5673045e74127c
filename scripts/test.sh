#!/usr/bin/env bash
# Builds ttd and runs every test: unit and integration tests (real gdb,
# gdb-multiarch, lldb-16, lldb-22) through ctest; the Debian package from
# cpack, installed and smoke-tested; the VS Code extension; then, unless the
# steps before took more than LATE_AFTER s (and then with a message), the
# benchmarks and developer tools (compiled only) and each libFuzzer target
# briefly on its seed corpus (scripts/fuzz.sh). Installs what it needs first.
# Usage: bash scripts/test.sh        (FUZZ_SECONDS=N to change fuzz time)
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase prints its wall time, so that a slow CI run says where the
# time went ("test.sh: <phase> took N s").
phase_start=$SECONDS
phase_done() { echo "test.sh: $1 took $((SECONDS - phase_start)) s (total $SECONDS s)"; phase_start=$SECONDS; }
bash scripts/install-deps.sh
phase_done "installing dependencies"

JOBS=${JOBS:-$(nproc)}
# CI compiles everything from scratch on 2 slow cores, so this build trades
# what the tests do not need for compile time (docs/testing.md has figures):
# - a unity build, 16 files per translation unit, so that headers are
#   parsed and their templates compiled once per batch, not once per file;
# - -O1 and no -g: the tests do not need -O2's speed or ttd's own types and
#   variables (tools/ttd/CMakeLists.txt keeps main.cpp's line table for
#   tests/install; programs that the tests debug set their own -g).
# - -O0 for the code whose speed no test depends on (the tests, benchmarks
#   and front ends: cmake/TtdColdCode.cmake lists them); the readers, the
#   index, replay, the history queries and the recorder stay at -O1.
CI_FLAGS="-O1 -DNDEBUG"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$CI_FLAGS" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$CI_FLAGS" \
  -DTTD_COLD_COMPILE_OPTIONS=-O0
# The build's and ctest's output go to build/build.log and build/ctest.log,
# and the console gets a progress line every 5 minutes: CI keeps only the
# end of the output, which should still show where the time went. A failure
# prints the log's last 200 lines.
# Usage: run_logged LOG LABEL PROGRESS-REGEX COMMAND...
run_logged() {
  local log=$1 label=$2 progress=$3 pid ticks=0
  shift 3
  "$@" >"$log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 5
    ticks=$((ticks + 1))
    if [ $((ticks % 60)) = 0 ]; then
      echo "test.sh: $label at $(grep -o "$progress" "$log" | tail -n 1) after $SECONDS s"
    fi
  done
  if ! wait "$pid"; then
    tail -n 200 "$log"
    echo "test.sh: $label failed; its whole output is in $log"
    exit 1
  fi
}
build_log=build/build.log
run_logged "$build_log" "the build" '^\[[0-9]*/[0-9]*\]' cmake --build build -j"$JOBS"
echo "test.sh: the build printed $(grep -c 'warning:' "$build_log" || true) warnings (see $build_log)"
phase_done "the build"
run_logged build/ctest.log "ctest" '[0-9]*/[0-9]* Test' ctest --test-dir build --output-on-failure -j"$JOBS" --timeout 600
tail -n 3 build/ctest.log
phase_done "ctest"

# The Debian package, installed and smoke-tested (record, query, gdb,
# man ttd-query, import ttd): scripts/deb-smoke.sh says how it installs.
bash scripts/deb-smoke.sh build
phase_done "the Debian package"
# The VS Code extension as a .vsix (@vscode/vsce from npm; skipped offline).
bash scripts/build-vsix.sh build
phase_done "the VS Code extension"

# Two optional steps follow: the benchmarks and developer tools (compiled,
# not run: no test needs them), then the fuzzers. On a machine so slow that
# the steps above took more than LATE_AFTER seconds, they would not finish
# within CI's 90 minutes, so they are skipped, and say so.
LATE_AFTER=${LATE_AFTER:-${FUZZ_BUILD_AFTER:-2700}}
skip_if_late() {
  if [ "$SECONDS" -gt "$LATE_AFTER" ]; then
    echo "$1: SKIPPED: the steps above took $SECONDS s (more than LATE_AFTER=$LATE_AFTER s),"
    echo "$1: so it would not finish within CI's time; $2 does it on its own"
    return 0
  fi
  return 1
}
if ! skip_if_late "dev_tools" "cmake --build build --target dev_tools"; then
  run_logged build/dev_tools.log "the dev_tools build" '^\[[0-9]*/[0-9]*\]' cmake --build build -j"$JOBS" --target dev_tools
  phase_done "the benchmarks and developer tools"
fi

# Fuzzers: clang-16 with libFuzzer, ASan and UBSan (scripts/fuzz.sh). That
# build compiles the readers again under ASan.
if ! skip_if_late "fuzz" "bash scripts/fuzz.sh"; then
  bash scripts/fuzz.sh
  phase_done "the fuzz build and fuzzing"
fi
