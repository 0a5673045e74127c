#!/usr/bin/env bash
# Every C++ source compiles on its own. The test build is a unity build
# (scripts/test.sh), which hides a missing #include when another file of
# the same batch brings it in; README's demo and the benchmarks build each
# file alone, and broke so once (2026-11-29). Syntax only: no code, a few
# minutes on two cores. Usage: bash scripts/check-standalone-sources.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-build-standalone}
cmake -S . -B "$DIR" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
python3 - "$DIR/compile_commands.json" "${JOBS:-$(nproc)}" <<'PY'
import json, os, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

entries = [e for e in json.load(open(sys.argv[1])) if e["file"].endswith(".cpp") and "/Unity/" not in e["file"]]

def check(e):
    args = shlex.split(e["command"])
    out = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT"):
            skip = True
            continue
        if a == "-MD":
            continue
        out.append(a)
    r = subprocess.run(out + ["-fsyntax-only"], cwd=e["directory"], capture_output=True, text=True)
    return e["file"], r.returncode, r.stderr

failed = 0
with ThreadPoolExecutor(int(sys.argv[2])) as pool:
    for path, rc, err in pool.map(check, entries):
        if rc != 0:
            failed += 1
            print(f"does not compile on its own: {os.path.relpath(path)}\n{err}", file=sys.stderr)
print(f"{len(entries)} sources, {failed} do not compile on their own")
sys.exit(1 if failed else 0)
PY
