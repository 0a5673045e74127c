#!/usr/bin/env bash
# Builds ttd and runs every test: unit and integration tests (real gdb,
# gdb-multiarch, lldb-16, lldb-22) through ctest, then each libFuzzer
# target briefly on its seed corpus; the Debian package from cpack,
# installed and smoke-tested. Installs what it needs first.
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
# -g1 (line tables, no types or variables): full -g doubles the compile time
# of a doctest file, and the tests only need source lines of ttd itself
# (tests/install: gdb finds main's line through the split debug file).
# Programs that the tests debug set their own -g. docs/testing.md has figures.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
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

# Fuzzers: clang-16 with libFuzzer, ASan and UBSan.
if [ ! -f tests/fuzz/CMakeLists.txt ]; then
  echo "fuzz: skipped: tests/fuzz/CMakeLists.txt is not in this tree yet (the fuzz harness build is unfinished)"
  exit 0
fi
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
CC=clang-16 CXX=clang++-16 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DTTD_FUZZ=ON -DBUILD_TESTING=OFF -DTTD_BENCH=OFF
# Only the fuzzers and what they link (tests/fuzz/CMakeLists.txt, fuzz_all).
cmake --build build-fuzz -j"$JOBS" --target fuzz_all
phase_done "the fuzz build"
fuzz_pass=0
fuzz_fail=0
for f in build-fuzz/tests/fuzz/fuzz_*; do
  [ -x "$f" ] || continue
  name=$(basename "$f")
  corpus=tests/fuzz/corpus/${name#fuzz_}
  work=$(mktemp -d)
  [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/ 2>/dev/null || true
  echo "fuzz: $name for ${FUZZ_SECONDS}s"
  if "$f" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -timeout=10 "$work" >"$work.log" 2>&1; then
    fuzz_pass=$((fuzz_pass + 1))
  else
    fuzz_fail=$((fuzz_fail + 1))
    tail -40 "$work.log"
    echo "fuzz: $name FAILED"
  fi
  rm -rf "$work" "$work.log"
done
echo "fuzz: $fuzz_pass passed, $fuzz_fail failed"
phase_done "fuzzing"
[ "$fuzz_fail" = 0 ]
