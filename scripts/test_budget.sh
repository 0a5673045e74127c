# Sourced by scripts/test.sh: runs the build and the tests in tiers within a
# time budget, so that a machine too slow to do everything in CI's time still
# finishes, runs the most important tests first and says what it skipped.
#
# TTD_TEST_BUDGET: seconds from the start of test.sh (default 5100, i.e. 85 of
#   CI's 90 minutes; 0 = no limit). A tier starts only when at least
#   TIER_MIN_SECONDS remain; its build is stopped at the budget's end minus
#   TEST_RESERVE_SECONDS. A step skipped or stopped for lack of time makes
#   every later step SKIPPED too: each may need what the earlier built.
# Each tier's tests run with ctest's --stop-time at the budget's end.
# test.sh exits 1 when a build or a test failed, 0 otherwise; a run that
# skipped anything ends with "test.sh: INCOMPLETE" and the list.

TTD_TEST_BUDGET=${TTD_TEST_BUDGET:-5100}
TIER_MIN_SECONDS=${TIER_MIN_SECONDS:-600}
TEST_RESERVE_SECONDS=${TEST_RESERVE_SECONDS:-300}
budget_skipped=()   # steps not run for lack of time
budget_failed=()    # steps that failed
out_of_time=0       # set once a step was skipped or cut off: nothing later starts

phase_start=$SECONDS
phase_done() { echo "test.sh: $1 took $((SECONDS - phase_start)) s (total $SECONDS s)"; phase_start=$SECONDS; }

# Seconds left in the budget (a large number when there is no limit).
budget_left() {
  if [ "$TTD_TEST_BUDGET" = 0 ]; then echo 1000000; else echo $((TTD_TEST_BUDGET - SECONDS)); fi
}

# budget_allows STEP NEED: true when NEED seconds remain and no earlier step
# was skipped or cut off; otherwise records STEP as skipped and says so.
budget_allows() {
  local left
  left=$(budget_left)
  if [ "$out_of_time" = 1 ]; then
    skip_step "$1" "an earlier step was skipped or stopped for lack of time"
  elif [ "$left" -lt "$2" ]; then
    skip_step "$1" "$left s of TTD_TEST_BUDGET=$TTD_TEST_BUDGET s left, it needs $2 s to start"
  else
    return 0
  fi
  return 1
}

# skip_step STEP WHY: records STEP as skipped for lack of time and says so;
# every later step is then skipped too, as it may need what STEP builds (the
# package needs it all).
skip_step() {
  echo "test.sh: $1: SKIPPED: $2"
  budget_skipped+=("$1")
  out_of_time=1
}

# Transparent huge pages for this run: on the CI machines (nested VMs) a TLB
# miss costs microseconds, and with THP set to "always" one compile alone
# took 0.45-0.67x the time (docs/testing.md; a -j2 build's gain is not
# measured). Only as root, only when the kernel's
# setting is "madvise" or "never", put back at exit; TTD_THP=keep leaves it.
thp_file=/sys/kernel/mm/transparent_hugepage/enabled
thp_before=""
thp_restore() { [ -z "$thp_before" ] || echo "$thp_before" >"$thp_file" 2>/dev/null || true; }
thp_enable() {
  [ "${TTD_THP:-}" != keep ] && [ -w "$thp_file" ] || return 0
  local now
  now=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$thp_file")
  [ "$now" != always ] || return 0
  if echo always >"$thp_file" 2>/dev/null; then
    thp_before=$now
    trap thp_restore EXIT
    echo "test.sh: transparent huge pages set to 'always' for this run (was '$now'; TTD_THP=keep to leave it)"
  fi
}

# run_logged LOG LABEL PROGRESS-REGEX LIMIT COMMAND...: runs COMMAND with its
# output in LOG and a progress line every 5 minutes on the console (CI keeps
# only the end of the output). LIMIT seconds (0 = none) stop it through
# timeout(1), which signals the whole process group. Returns COMMAND's
# status, 124 when stopped; a failure prints LOG's last 200 lines.
run_logged() {
  local log=$1 label=$2 progress=$3 limit=$4 pid ticks=0 status=0
  shift 4
  if [ "$limit" -gt 0 ]; then set -- timeout --kill-after=30 "$limit" "$@"; fi
  "$@" >"$log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 5
    ticks=$((ticks + 1))
    if [ $((ticks % 60)) = 0 ]; then
      echo "test.sh: $label at $(grep -o "$progress" "$log" | tail -n 1) after $SECONDS s"
    fi
  done
  wait "$pid" || status=$?
  if [ "$status" != 0 ] && [ "$status" != 124 ]; then
    tail -n 200 "$log"
    echo "test.sh: $label failed (status $status); its whole output is in $log"
  fi
  return "$status"
}

# build_step NAME TARGET...: builds TARGETs within the budget. Returns 0 when
# built; 1 when skipped or cut off for time (recorded); exits on a failure.
build_step() {
  local name=$1 limit=0 status=0 log
  shift
  budget_allows "$name" "$TIER_MIN_SECONDS" || return 1
  [ "$TTD_TEST_BUDGET" = 0 ] || limit=$(($(budget_left) - TEST_RESERVE_SECONDS))
  log=build/build-${name// /_}.log
  run_logged "$log" "the $name build" '^\[[0-9]*/[0-9]*\]' "$limit" \
    cmake --build build -j"$JOBS" --target "$@" || status=$?
  if [ "$status" = 124 ]; then
    skip_step "$name" "its build was stopped at the budget's end ($(grep -o '^\[[0-9]*/[0-9]*\]' "$log" | tail -n 1))"
    return 1
  fi
  [ "$status" = 0 ] || exit 1
  echo "test.sh: the $name build printed $(grep -c 'warning:' "$log" || true) warnings (see $log)"
  phase_done "the $name build"
}

# test_step NAME DIR...: runs the ctest tests of build/DIR... together
# (one generated CTestTestfile.cmake that includes each folder's), stopping
# at the budget's end. A failure is recorded and the run goes on.
test_step() {
  local name=$1 dir stop=() list="" log
  shift
  dir=build/test-tiers/${name// /_}
  mkdir -p "$dir"
  for d in "$@"; do
    [ ! -f "build/$d/CTestTestfile.cmake" ] || list+=" \"$PWD/build/$d\""
  done
  echo "subdirs($list)" >"$dir/CTestTestfile.cmake"
  if [ "$TTD_TEST_BUDGET" != 0 ]; then
    stop=(--stop-time "$(date -d "@$(($(date +%s) + $(budget_left)))" +%H:%M:%S)")
  fi
  log=build/ctest-${name// /_}.log
  if run_logged "$log" "the $name tests" '[0-9]*/[0-9]* Test' 0 \
       ctest --test-dir "$dir" --output-on-failure -j"$JOBS" --timeout 600 "${stop[@]}"; then
    tail -n 3 "$log"
  else
    budget_failed+=("$name tests")
  fi
  phase_done "the $name tests"
}

# tier NAME "TARGET..." DIR...: build_step, then test_step when it was built.
tier() {
  local name=$1 targets=$2
  shift 2
  # shellcheck disable=SC2086 # the targets are a word list
  build_step "$name" $targets && test_step "$name" "$@"
  return 0
}

# The end: what failed, what was skipped, and the exit status.
budget_summary() {
  echo "test.sh: finished after $SECONDS s"
  if [ ${#budget_skipped[@]} -gt 0 ]; then
    echo "test.sh: INCOMPLETE: skipped for lack of time (TTD_TEST_BUDGET=$TTD_TEST_BUDGET s):"
    printf 'test.sh:   %s\n' "${budget_skipped[@]}"
  fi
  if [ ${#budget_failed[@]} -gt 0 ]; then
    echo "test.sh: FAILED:"
    printf 'test.sh:   %s\n' "${budget_failed[@]}"
    exit 1
  fi
  echo "test.sh: every step that ran passed"
}
