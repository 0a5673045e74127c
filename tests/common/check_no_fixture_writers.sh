#!/usr/bin/env bash
# Fails when a shipped binary or library defines a fixture writer's code:
# the UMTracer writer and its x86 helpers, the Tenet and TT6 / FULL writers,
# the XRay call stack that repeated the engine's call pairing.
# Usage: check_no_fixture_writers.sh FILE...
set -euo pipefail
pattern='fmt::umtrace::(UmtraceWriter|InstructionTableEncoder|encode_decoded|X86RegisterCatalog|X86InstructionDecoder|X86LocalContextBuilder)|fmt::tenet::TenetWriter|fmt::tt6::(Tt6Writer|FullWriter|save_bytes)|fmt::xray::(CallStackTracker|collect_xray_calls|for_each_xray_call)'
status=0
for f in "$@"; do
  hits=$(nm -C --defined-only "$f" 2>/dev/null | grep -E "$pattern" | head -5 || true)
  if [[ -n "$hits" ]]; then
    echo "$f defines fixture-writer code:" >&2
    echo "$hits" >&2
    status=1
  fi
done
[[ $status -eq 0 ]] && echo "no fixture writer in: $*"
exit $status
