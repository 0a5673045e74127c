#!/usr/bin/env bash
# Builds ttd and runs every test: unit and integration tests (real gdb,
# gdb-multiarch, lldb-16, lldb-22) through ctest, then each libFuzzer
# target briefly on its seed corpus (scripts/fuzz.sh; skipped, with a
# message, when the steps before it took more than FUZZ_BUILD_AFTER s); the
# Debian package from cpack, installed and smoke-tested. Installs what it
# needs first.
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
CI_FLAGS="-O1 -DNDEBUG"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$CI_FLAGS" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$CI_FLAGS"
cmake --build build -j"$JOBS"
phase_done "the build"
(cd build && ctest --output-on-failure -j"$JOBS" --timeout 600)
phase_done "ctest"

# The Debian package, installed and smoke-tested (record, query, gdb,
# man ttd-query, import ttd): scripts/deb-smoke.sh says how it installs.
bash scripts/deb-smoke.sh build
phase_done "the Debian package"
# The VS Code extension as a .vsix (@vscode/vsce from npm; skipped offline).
bash scripts/build-vsix.sh build
phase_done "the VS Code extension"

# Fuzzers: clang-16 with libFuzzer, ASan and UBSan (scripts/fuzz.sh). That
# build compiles the readers again under ASan: on a machine so slow that the
# steps above took more than FUZZ_BUILD_AFTER seconds, it would not finish
# within CI's 90 minutes, so it is skipped, and says so.
FUZZ_BUILD_AFTER=${FUZZ_BUILD_AFTER:-2700}
if [ "$SECONDS" -gt "$FUZZ_BUILD_AFTER" ]; then
  echo "fuzz: SKIPPED: the steps above took $SECONDS s (more than FUZZ_BUILD_AFTER=$FUZZ_BUILD_AFTER s),"
  echo "fuzz: so the ASan build would not finish within CI's time; bash scripts/fuzz.sh fuzzes on its own"
  exit 0
fi
bash scripts/fuzz.sh
phase_done "the fuzz build and fuzzing"
