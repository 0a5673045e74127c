#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-16, ASan and UBSan in build-fuzz/
# (a unity build of the fuzzers and only what they link) and runs each for
# FUZZ_SECONDS (20 by default) on a scratch copy of its seed corpus.
# scripts/test.sh calls it; it needs scripts/install-deps.sh to have run.
# Usage: bash scripts/fuzz.sh        (FUZZ_SECONDS=N to change fuzz time)
set -euo pipefail
cd "$(dirname "$0")/.."
phase_start=$SECONDS
phase_done() { echo "fuzz.sh: $1 took $((SECONDS - phase_start)) s"; phase_start=$SECONDS; }
JOBS=${JOBS:-$(nproc)}
if [ ! -f tests/fuzz/CMakeLists.txt ]; then
  echo "fuzz: skipped: tests/fuzz/CMakeLists.txt is not in this tree yet (the fuzz harness build is unfinished)"
  exit 0
fi
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
CC=clang-16 CXX=clang++-16 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DTTD_FUZZ=ON -DBUILD_TESTING=OFF -DTTD_BENCH=OFF
# Only the fuzzers and what they link (tests/fuzz/CMakeLists.txt, fuzz_all).
cmake --build build-fuzz -j"$JOBS" --target fuzz_all
phase_done "the fuzz build"
# fuzz_elf's seeds are built here from source (binaries stay out of git).
elf_seeds() {
  local src=tests/fuzz/corpus/elf/seed.c flags=(-g -static -nostdlib -fno-pie -no-pie -Wl,-z,max-page-size=4096)
  gcc -O0 "${flags[@]}" -o "$1/x86_64-O0" "$src"
  gcc -O1 "${flags[@]}" -o "$1/x86_64-O1" "$src"
  if command -v aarch64-linux-gnu-gcc >/dev/null; then
    aarch64-linux-gnu-gcc -O1 "${flags[@]}" -o "$1/aarch64-O1" "$src"
  fi
}
fuzz_pass=0
fuzz_fail=0
for f in build-fuzz/tests/fuzz/fuzz_*; do
  [ -x "$f" ] || continue
  name=$(basename "$f")
  corpus=tests/fuzz/corpus/${name#fuzz_}
  work=$(mktemp -d)
  [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/ 2>/dev/null || true
  if [ "$name" = fuzz_elf ]; then elf_seeds "$work"; fi
  echo "fuzz: $name for ${FUZZ_SECONDS}s"
  if LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp "$f" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -timeout=10 "$work" >"$work.log" 2>&1; then
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
