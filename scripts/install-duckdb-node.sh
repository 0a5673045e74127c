#!/usr/bin/env bash
# Installs DuckDB's Node package (@duckdb/node-api: its engine comes
# bundled from the npm registry, no compiler, no other download) under
# build/npm for the DuckDB recipe (examples/duckdb, docs/export.md). Once
# installed, the recipe runs offline. Never fails the caller: without npm
# or the registry the recipe's test is skipped with a message.
# (The older `duckdb` package fetches its engine from npm.duckdb.org, not
# from the registry, and compiles DuckDB from source when that is
# unreachable: too long for CI.)
set -uo pipefail
cd "$(dirname "$0")/.."
VERSION=1.5.6-r.1
PREFIX=${TTD_NPM_PREFIX:-build/npm}
if [ -f "$PREFIX/node_modules/@duckdb/node-api/package.json" ] &&
   grep -q "\"version\": \"$VERSION\"" "$PREFIX/node_modules/@duckdb/node-api/package.json"; then
  echo "install-duckdb-node: @duckdb/node-api $VERSION already in $PREFIX"
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "install-duckdb-node: npm is not installed; the DuckDB recipe test will be skipped"
  exit 0
fi
mkdir -p "$PREFIX"
if timeout 300 npm install --prefix "$PREFIX" --no-audit --no-fund --no-save "@duckdb/node-api@$VERSION" >"$PREFIX/npm-install.log" 2>&1; then
  echo "install-duckdb-node: @duckdb/node-api $VERSION installed in $PREFIX"
else
  echo "install-duckdb-node: npm could not install @duckdb/node-api (see $PREFIX/npm-install.log); the DuckDB recipe test will be skipped"
fi
exit 0
