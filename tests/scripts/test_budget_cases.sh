#!/usr/bin/env bash
# Checks scripts/test_budget.sh: a tier that builds and passes, a failing
# test, a failing build, a build stopped at the budget's end (and the steps
# after it skipped). cmake and ctest are fakes on PATH, told what to do by
# FAKE_BUILD (ok, fail, or a number of seconds to sleep) and FAKE_TEST.
# Usage: test_budget_cases.sh PATH/TO/test_budget.sh
set -uo pipefail
lib=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/build/tests/a" "$work/build/tests/b"
touch "$work/build/tests/a/CTestTestfile.cmake" "$work/build/tests/b/CTestTestfile.cmake"
cat >"$work/bin/cmake" <<'FAKE'
#!/usr/bin/env bash
echo "[1/2] fake build $*"
case $FAKE_BUILD in ok) exit 0 ;; fail) echo "error: fake"; exit 1 ;; *) sleep "$FAKE_BUILD" ;; esac
FAKE
cat >"$work/bin/ctest" <<'FAKE'
#!/usr/bin/env bash
dir=$2
cat "$dir/CTestTestfile.cmake"
echo "1/1 Test #1: fake"
[ "$FAKE_TEST" = ok ]
FAKE
chmod +x "$work/bin/cmake" "$work/bin/ctest"
failures=0

# run_case NAME EXPECTED-STATUS BUDGET BUILD TEST REGEX...: runs two tiers and
# the summary in a fresh shell; checks the status and that each REGEX is in
# the output.
run_case() {
  local name=$1 want=$2 budget=$3 build=$4 test=$5 out status
  shift 5
  out=$(cd "$work" && PATH="$work/bin:$PATH" FAKE_BUILD=$build FAKE_TEST=$test \
        TTD_TEST_BUDGET=$budget TIER_MIN_SECONDS=${TIER_MIN:-1} TEST_RESERVE_SECONDS=2 JOBS=1 bash -c "
    set -euo pipefail
    source '$lib'
    tier one 'x' tests/a tests/missing
    tier two 'y' tests/b
    budget_summary" 2>&1)
  status=$?
  local ok=1
  [ "$status" = "$want" ] || { echo "$name: exit status $status, expected $want"; ok=0; }
  for re in "$@"; do
    grep -Eq -- "$re" <<<"$out" || { echo "$name: no line matches '$re'"; ok=0; }
  done
  if [ "$ok" = 1 ]; then echo "$name: ok"; else echo "$out" | sed "s/^/  $name| /"; failures=$((failures + 1)); fi
}

run_case "all pass" 0 0 ok ok "every step that ran passed" "subdirs\\( \"$work/build/tests/a\"\\)"
run_case "a test fails" 1 0 ok fail "FAILED:" "  one tests" "  two tests"
run_case "a build fails" 1 0 fail ok "the one build failed" "error: fake"
run_case "out of time" 0 6 30 ok "one: SKIPPED: its build was stopped" \
  "two: SKIPPED: an earlier step was skipped or stopped" "INCOMPLETE:" "every step that ran passed"
# A tier skipped for want of time (not stopped) also skips the steps after it.
TIER_MIN=60 run_case "too late to start" 0 3 ok ok "one: SKIPPED: [0-9-]+ s of TTD_TEST_BUDGET=3 s left, it needs 60 s" \
  "two: SKIPPED: an earlier step was skipped or stopped"
[ "$failures" = 0 ] && echo "test_budget: 0 failures" || { echo "test_budget: $failures failures"; exit 1; }
