#!/usr/bin/env bash
# Packages the VS Code extension (ide/vscode) as OUT_DIR/ttd-debug-<version>.vsix
# with @vscode/vsce from the npm registry, and checks the package lists
# the extension's files. Exits 0 with a "skipped" line when the registry
# is unreachable (offline machines); any other failure is an error.
# Usage: bash scripts/build-vsix.sh [OUT_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$(realpath -m "${1:-build}")
VSCE_VERSION=${VSCE_VERSION:-3.2.1}   # works with Debian's and newer Node; pinned for repeatable packages
mkdir -p "$OUT"
if ! command -v npx >/dev/null; then
  echo "vsix: skipped: npx is not installed (apt-get install npm)"
  exit 0
fi
if ! timeout 30 npm view "@vscode/vsce@$VSCE_VERSION" version >/dev/null 2>&1; then
  echo "vsix: skipped: the npm registry is unreachable (npm view @vscode/vsce failed); the extension is not packaged"
  exit 0
fi
VERSION=$(node -p 'require("./ide/vscode/package.json").version')
VSIX="$OUT/ttd-debug-$VERSION.vsix"
rm -f "$VSIX"
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
# vsce warns (and asks) about a missing repository, LICENSE or icon: with
# those present it must not ask, so stdin is closed.
if ! (cd ide/vscode && timeout 600 npx --yes "@vscode/vsce@$VSCE_VERSION" package --out "$VSIX" </dev/null >"$LOG" 2>&1); then
  cat "$LOG"
  echo "vsix: vsce package failed"
  exit 1
fi
if grep -qi "warning" "$LOG"; then
  cat "$LOG"
  echo "vsix: vsce warned"
  exit 1
fi
LIST=$(/usr/bin/python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$VSIX")
for f in extension/package.json extension/extension.js extension/LICENSE.txt extension/icon.png extension/readme.md; do
  grep -qix "$f" <<<"$LIST" || { echo "$LIST"; echo "vsix: $f is not in $VSIX"; exit 1; }
done
if grep -q "extension/test/" <<<"$LIST"; then echo "vsix: the tests were packaged"; exit 1; fi
echo "vsix: $VSIX ($(du -h "$VSIX" | cut -f1))"
