#!/usr/bin/env bash
# Runs ttd_dap.test.js with VS Code's DAP test client, installed from the
# npm registry once into CACHE (under the build tree). Exit 77 (skipped,
# not failed) when node/npm are missing or npm cannot fetch the package.
# usage: run.sh TTD EXAMPLES_DIR SOURCES_DIR WORK_DIR CACHE_DIR
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ttd=$1 examples=$2 sources=$3 work=$4 cache=$5
command -v node >/dev/null || { echo "SKIPPED: node is not installed (apt-get install nodejs npm)"; exit 77; }
module="$cache/node_modules/@vscode/debugadapter-testsupport"
if [ ! -f "$module/package.json" ]; then
  command -v npm >/dev/null || { echo "SKIPPED: npm is not installed (apt-get install npm)"; exit 77; }
  mkdir -p "$cache"
  cp "$here/package.json" "$cache/package.json"
  if ! (cd "$cache" && timeout 300 npm install --no-audit --no-fund --no-package-lock >"$cache/npm.log" 2>&1); then
    echo "SKIPPED: npm could not fetch @vscode/debugadapter-testsupport (see $cache/npm.log):"
    tail -5 "$cache/npm.log"
    exit 77
  fi
fi
NODE_PATH="$cache/node_modules" exec node "$here/ttd_dap.test.js" "$ttd" "$examples" "$sources" "$work"
