#!/usr/bin/env bash
# The demo: installs what ttd needs, builds it, records the bundled
# linked-list example under ttd's Unicorn recorder, queries the state at a
# few EIDs, then serves the trace and drives gdb through a short
# reverse-debugging session that finds the stray write that corrupts a
# list node. Usage: bash scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== installing what ttd needs (apt, first time only)"
bash scripts/install-deps.sh
echo "== building ttd, its Python module and the examples (first time: a few minutes; ninja counts the files)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# ninja's [done/total] lines are the progress; compiler warnings would drown them.
cmake --build build -j"$(nproc)" --target ttd examples ttd_python | grep -E '^\[[0-9]+/[0-9]+\]' | \
  awk '{ if (NR % 20 == 1) print "   " $1 " files built"; fflush() }'
echo "   build done"

TTD=build/ttd
PROG=build/examples/x86_64/linked_list
TRACE=build/demo/linked_list.ucir
mkdir -p build/demo
echo
echo "== recording $PROG"
echo "\$ ttd record -o $TRACE -- $PROG"
# ttd record exits with the program's status, and linked_list exits 1: the
# bug the session below finds. A recording that fails leaves no trace.
"$TTD" record -o "$TRACE" -- "$PROG" || echo "(linked_list exited with status $?: its bug)"
[ -f "$TRACE" ] || { echo "demo: ttd record failed" >&2; exit 1; }
echo
echo "\$ ttd info $TRACE"
"$TTD" info "$TRACE"
STEPS=$("$TTD" info --json "$TRACE" | python3 -c 'import json,sys; print(json.load(sys.stdin)["steps"])')
MAIN=$(nm "$PROG" | awk '$3=="main"{print "0x"$1}')
FIRST_MAIN=$("$TTD" executions "$TRACE" --pc "$MAIN" --limit 1 --json 2>/dev/null | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["eid"])' 2>/dev/null || echo 0)
echo
echo "== the state at chosen EIDs (the state before that step runs)"
for EID in 0 "$FIRST_MAIN" $((STEPS / 2)) "$STEPS"; do
  # --mem takes an address; the 16 bytes at the stack pointer are asked for by value.
  RSP=$("$TTD" query "$TRACE" --at "$EID" --json --reg rsp | python3 -c 'import json,sys; print(json.load(sys.stdin)["regs"]["rsp"] or "0")')
  echo "\$ ttd query $TRACE --at $EID --json --reg rip --reg rsp --reg rax --mem $RSP:16"
  "$TTD" query "$TRACE" --at "$EID" --json --reg rip --reg rsp --reg rax --mem "$RSP:16"
done

if "$TTD" serve --help >/dev/null 2>&1; then
  echo
  echo "== debugging the trace backwards with gdb"
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$TTD" serve "$TRACE" --listen "127.0.0.1:$PORT" --once >build/demo/serve.log 2>&1 &
  SERVER=$!
  trap 'kill $SERVER 2>/dev/null || true' EXIT
  for _ in $(seq 50); do grep -q "target remote" build/demo/serve.log 2>/dev/null && break; sleep 0.1; done
  set -x
  gdb -batch -nx "$PROG" \
    -ex "target remote 127.0.0.1:$PORT" \
    -ex "echo \\n# 1. Run forward to print_list: the list says pears has quantity 0 (pushed with 40).\\n" \
    -ex "break print_list" -ex "continue" \
    -ex "print pool[1]" \
    -ex "echo \\n# 2. Watch the quantity and run BACKWARDS: gdb stops at the last write before here.\\n#    It stops in audit_removed(): the corrupting write, a store through the pointer to\\n#    bananas, a node already freed and reused for pears. Going backwards gdb prints\\n#    Old value = 0 (after the write) and New value = 40 (before it).\\n" \
    -ex "watch pool[1].quantity" \
    -ex "reverse-continue" \
    -ex "backtrace" \
    -ex "echo \\n# 3. Backwards once more: the write before it, push() giving pears its real 40.\\n" \
    -ex "reverse-continue" \
    -ex "backtrace" \
    -ex "echo \\n# 4. The trace position (EID) and one instruction back and forth.\\n" \
    -ex "monitor eid" \
    -ex "delete" -ex "reverse-stepi" -ex "stepi" -ex "monitor eid" \
    -ex "continue" \
    -ex "detach" || true
  set +x
  wait $SERVER 2>/dev/null || true
fi
echo
echo "== the same trace from Python"
echo "\$ PYTHONPATH=build/python python3 -c 'import ttd; t = ttd.open(\"$TRACE\"); print(t); list(t.steps(0, 3))'"
# Debian's python3: the module is built for it (python3 on PATH may be pyenv's).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
PYTHONPATH=build/python "$PY" -c "
import ttd
t = ttd.open('$TRACE')
print(t, 'ttd', ttd.__version__)
for s in t.steps(0, 3):
    print('  step', s['eid'], s['kind'], hex(s['pc']), 'writes', [hex(m['addr']) for m in s['mem'] if m['op'] == 'w'])
" || { echo "demo: the Python module did not import (docs/python.md says how it is built)"; exit 1; }
echo "   (pip install --no-build-isolation . installs it in a venv: docs/install.md)"
echo
echo "== done. Try it yourself:  $TTD serve $TRACE   (it prints the gdb and lldb commands to attach)"
