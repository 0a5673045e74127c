#!/bin/sh
# Writes llvm-xray's reference outputs next to each log in the given
# directories (see PROVENANCE.md):
#   <log>.yaml              llvm-xray convert --output-format=yaml (only when it succeeds)
#   <log>.convert-stderr.txt  its complaint when it fails
#   <log>.fdr-dump.txt      llvm-xray fdr-dump, stderr interleaved (FDR logs only)
#   <log>.verify-stderr.txt llvm-xray fdr-dump -verify, stderr only (FDR logs only)
set -u
LLVM_XRAY=${LLVM_XRAY:-llvm-xray-14}
for dir in "$@"; do
  for log in "$dir"/*.xray; do
    base=${log%.xray}
    rm -f "$base.yaml" "$base.convert-stderr.txt" "$base.fdr-dump.txt" "$base.verify-stderr.txt"
    if $LLVM_XRAY convert --output-format=yaml "$log" -o "$base.yaml" 2> "$base.convert-stderr.txt"; then
      rm -f "$base.convert-stderr.txt"
    else
      rm -f "$base.yaml"
    fi
    # type field: bytes 2-3 of the header; 1 = FDR
    if [ "$(od -An -tu2 -j2 -N2 "$log" | tr -d ' ')" = "1" ]; then
      $LLVM_XRAY fdr-dump "$log" > "$base.fdr-dump.txt" 2>&1
      $LLVM_XRAY fdr-dump -verify "$log" > /dev/null 2> "$base.verify-stderr.txt"
    fi
  done
done
