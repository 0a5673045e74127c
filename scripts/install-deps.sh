#!/usr/bin/env bash
# Installs everything ttd needs to build, test and run its demo on Debian 12
# (as root). Packages already present are not reinstalled. lldb-22 cannot be
# installed beside lldb-16 (their python packages conflict), so it is
# unpacked into .deps/lldb-22 instead and run with LD_LIBRARY_PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build pkg-config git python3 python3-dev
  libunicorn-dev libcapstone-dev libxxhash-dev doctest-dev libsnappy-dev libzstd-dev
  libsqlite3-dev libcli11-dev nlohmann-json3-dev libbenchmark-dev pybind11-dev python3-matplotlib
  libelf-dev libdw-dev
  python3-venv python3-pip python3-setuptools python3-wheel dpkg-dev file man-db zsh
  clang-16 libclang-rt-16-dev
  gdb gdb-multiarch lldb-16
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user musl-tools
  gcc-powerpc-linux-gnu
  llvm-14
)

# Node and npm (the DAP test client, vsce, DuckDB's package): Debian's, unless
# a node with npm is already installed (e.g. NodeSource's nodejs, which
# bundles npm and conflicts with Debian's npm package).
command -v npm >/dev/null 2>&1 || PACKAGES+=(nodejs npm)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# lldb-22 (reverse continue arrived in LLDB 21), unpacked beside the build.
if [ ! -x .deps/lldb-22/usr/lib/llvm-22/bin/lldb ]; then
  echo "install-deps: unpacking lldb-22 into .deps/lldb-22"
  mkdir -p .deps/debs .deps/lldb-22
  (cd .deps/debs && apt-get download lldb-22 liblldb-22 python3-lldb-22 libllvm22 libclang-cpp22 2>/dev/null || \
     { $SUDO apt-get update -q && apt-get download lldb-22 liblldb-22 python3-lldb-22 libllvm22 libclang-cpp22; }) || \
     echo "install-deps: lldb-22 is not available; its tests will be skipped"
  for d in .deps/debs/*.deb; do [ -e "$d" ] && dpkg -x "$d" .deps/lldb-22; done
fi
# DuckDB's Node package for the DuckDB recipe's test (under build/npm;
# about 30 s once, nothing after; skipped with a message without npm).
bash scripts/install-duckdb-node.sh
echo "install-deps: done"
