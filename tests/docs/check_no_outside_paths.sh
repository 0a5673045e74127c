#!/usr/bin/env bash
# Comments and documents cite specifications by title and files of this
# repository by their repository path, never a path on someone's machine
# (issue 18, item 5). PROVENANCE notes may name where a copy came from.
# Usage: check_no_outside_paths.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: check_no_outside_paths.sh SOURCE_DIR}
cd "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git ls-files -- '*.h' '*.cpp' '*.md')
else
  files=$(find . -path './build*' -prune -o \( -name '*.h' -o -name '*.cpp' -o -name '*.md' \) -print)
fi
hits=$(printf '%s\n' "$files" | grep -v 'PROVENANCE' | xargs -r grep -nE '/work|\.\./shared' -- || true)
if [[ -n "$hits" ]]; then
  echo "paths outside the repository in comments or documents:" >&2
  echo "$hits" >&2
  exit 1
fi
echo "no path outside the repository cited"
