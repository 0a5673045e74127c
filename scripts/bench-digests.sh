#!/usr/bin/env bash
# Prints the machine-state digest at sampled EIDs of every trace given (or
# every trace in tests/data and the recorded examples), one line per EID:
# "TRACE EID DIGEST". Run it before and after an index change and diff the
# outputs: answers must stay byte-identical. Indexes go to a temporary
# folder, never beside the traces.
# Usage: bash scripts/bench-digests.sh [TTD] [TRACE...]   (TTD default build/ttd)
set -uo pipefail
cd "$(dirname "$0")/.."
TTD=${1:-build/ttd}
shift || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
traces=("$@")
if [ ${#traces[@]} -eq 0 ]; then
  while IFS= read -r f; do traces+=("$f"); done < <(find tests/data -type f \( -name '*.xray' -o -name '*.sqlite' -o -name '*.ucir' -o -name '*.tenet' -o -name '*.log' \) | sort)
  for p in linked_list recursion loop; do
    exe=build/examples/x86_64/$p
    [ -x "$exe" ] || continue
    # ttd record exits with the program's status (linked_list's is 1); a
    # failed recording leaves no trace. A fixed pid and epoch: by default
    # the program gets the recorder's own pid, so two runs would differ.
    "$TTD" record --pid 4242 --epoch 1700000000 -o "$tmp/$p.ucir" -- "$exe" 3000 >/dev/null 2>&1 || true
    [ -f "$tmp/$p.ucir" ] && traces+=("$tmp/$p.ucir")
  done
fi
n=0
for t in "${traces[@]}"; do
  n=$((n + 1))
  idx="$tmp/$n.ttdidx"
  steps=$("$TTD" info --index "$idx" --keyframe-interval 64 --json "$t" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["steps"])' 2>/dev/null) || { echo "$t - unopenable"; continue; }
  for k in 0 1 2 3 5 7 11 13 17 19 20; do
    eid=$((steps * k / 20))
    d=$("$TTD" query --index "$idx" --at "$eid" --json --digest "$t" 2>&1 | python3 -c 'import json,sys; print(json.load(sys.stdin).get("digest"))' 2>/dev/null || echo error)
    echo "${t#"$tmp"/} $eid $d"
  done
done
