#!/usr/bin/env bash
# Builds the Debian package (cpack -G DEB in BUILD, default build/) and
# smoke-tests it as installed: record the linked-list example, query it,
# serve it to gdb and step backwards, `man ttd-query`, the bash completion,
# and `import ttd` with Debian's python3.
#
# TTD_DEB_INSTALL=system (default as root with apt-get): `apt-get install
#   ./ttd_*.deb` for real, which checks its Depends on this Debian, then
#   `apt-get remove` afterwards so later steps see the machine as before.
# TTD_DEB_INSTALL=extract (default otherwise): `dpkg -x` into a scratch
#   tree, for machines where installing into /usr would disturb others
#   (Depends are then checked with `apt-get install --simulate`).
# Usage: bash scripts/deb-smoke.sh [BUILD]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
MODE=${TTD_DEB_INSTALL:-}
if [ -z "$MODE" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then MODE=system; else MODE=extract; fi
fi

echo "deb-smoke: cpack -G DEB in $BUILD"
rm -f "$BUILD"/ttd_*.deb
(cd "$BUILD" && cpack -G DEB >cpack.log 2>&1) || { tail -30 "$BUILD/cpack.log"; echo "deb-smoke: cpack failed"; exit 1; }
DEB=$(ls "$BUILD"/ttd_*.deb)
DEB=$(realpath "$DEB")
echo "deb-smoke: $DEB ($(du -h "$DEB" | cut -f1)); $(dpkg-deb -f "$DEB" Depends)"

WORK=$(mktemp -d)
SERVER=""
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
  rm -rf "$WORK"
  if [ "$MODE" = system ] && dpkg -s ttd >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get remove -y -q ttd >/dev/null || true
  fi
}
trap cleanup EXIT

if [ "$MODE" = system ]; then
  if dpkg -s ttd >/dev/null 2>&1; then
    echo "deb-smoke: a ttd package is installed already; not replacing it (TTD_DEB_INSTALL=extract to test anyway)"
    trap - EXIT; rm -rf "$WORK"; exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$DEB" >"$WORK/apt.log" 2>&1 ||
    { cat "$WORK/apt.log"; echo "deb-smoke: apt-get install $DEB failed"; exit 1; }
  ROOT=""
  PYDIR=""
  export MANPATH=""
  unset MANPATH
else
  apt-get install --simulate "$DEB" >"$WORK/apt.log" 2>&1 ||
    { cat "$WORK/apt.log"; echo "deb-smoke: the package's Depends do not resolve here"; exit 1; }
  ROOT="$WORK/root"
  dpkg -x "$DEB" "$ROOT"
  PYDIR=$(dirname "$(ls -d "$ROOT"/usr/lib/python3*/dist-packages/ttd)")
  export MANPATH="$ROOT/usr/share/man:"
fi
TTD="$ROOT/usr/bin/ttd"
echo "deb-smoke: testing $TTD ($MODE)"
fail() { echo "deb-smoke: FAIL: $*"; exit 1; }

PROG=$(realpath "$BUILD/examples/x86_64/linked_list")
[ -x "$PROG" ] || fail "$PROG is not built (cmake --build $BUILD --target examples)"
cd "$WORK"  # nothing from the source or build tree is on any path from here
"$TTD" record -q -o list.ucir -- "$PROG" >/dev/null || [ -f list.ucir ] || fail "ttd record"  # the example exits 1
STEPS=$("$TTD" info --json list.ucir | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["steps"])')
[ "$STEPS" -gt 1000 ] || fail "ttd info: $STEPS steps"
"$TTD" query list.ucir --at $((STEPS / 2)) --json --reg rip | grep -q '"rip"' || fail "ttd query"
echo "deb-smoke: recorded $STEPS steps; query ok"

PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$TTD" serve list.ucir --listen "127.0.0.1:$PORT" --once >serve.log 2>&1 &
SERVER=$!
for _ in $(seq 100); do grep -q "target remote" serve.log 2>/dev/null && break; sleep 0.1; done
timeout 120 gdb -batch -nx "$PROG" -ex "target remote 127.0.0.1:$PORT" -ex "break print_list" -ex "continue" \
  -ex "monitor eid" -ex "reverse-stepi" -ex "monitor eid" -ex "detach" >gdb.log 2>&1 || true
wait "$SERVER" 2>/dev/null || true
SERVER=""
mapfile -t EIDS < <(grep -oiE '^eid [0-9]+' gdb.log | grep -oE '[0-9]+')
[ "${#EIDS[@]}" -ge 2 ] && [ "${EIDS[1]}" -eq $((EIDS[0] - 1)) ] ||
  { cat gdb.log; fail "gdb: break, then reverse-stepi one EID back (saw ${EIDS[*]:-nothing})"; }
echo "deb-smoke: gdb stopped at print_list (EID ${EIDS[0]}) and stepped back to ${EIDS[1]}"

MANWIDTH=100 MANPAGER=cat man ttd-query 2>&1 | grep -q -- "--at" || fail "man ttd-query"
[ -f "$ROOT/usr/share/bash-completion/completions/ttd" ] || fail "no bash completion"
[ -f "$ROOT/usr/share/zsh/vendor-completions/_ttd" ] || fail "no zsh completion"
echo "deb-smoke: man ttd-query, bash and zsh completions ok"

env -u PYTHONPATH ${PYDIR:+PYTHONPATH=$PYDIR} /usr/bin/python3 -c '
import sys, ttd
t = ttd.open("list.ucir")
first = next(iter(t.steps()))
assert first["eid"] == 0, first
print(f"deb-smoke: python3: ttd {ttd.__version__} from {ttd.__file__}, {t.step_count} steps")' || fail "import ttd"
echo "deb-smoke: passed"
