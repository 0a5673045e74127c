// One ground-truth run: records `program` with the recorder, indexes the
// trace, runs the same program natively single-stepped, and compares at
// every EID the native state with the engine's reconstruction (Trace +
// Cursor): registers (state_comparison.h) and every byte of the program's
// writable segments (its data, bss and the stack the programs switch to).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "state/error.h"
#include "tests/fidelity/state_comparison.h"

namespace ttd::fidelity {

struct NativeComparison {
  uint64_t recorded_steps = 0, native_steps = 0;
  uint64_t register_comparisons = 0, memory_comparisons = 0;
  // EIDs where EFLAGS differed only in architecturally undefined flags
  // (left out of the comparison; docs/recording.md, "Fidelity").
  uint64_t undefined_flag_eids = 0;
  std::optional<Difference> first;  // the first difference, if any
  std::string native_stdout, recorded_stdout;
  int native_exit = -1, recorded_exit = -1;
  double record_seconds = 0;
};

// Called with each native state before it is compared; tests use it to
// inject a difference and show the comparison catches it.
using NativeTamper = std::function<void(uint64_t eid, NativeState&)>;

Result<NativeComparison> compare_with_native(const std::string& program, const NativeTamper& tamper = {});

}  // namespace ttd::fidelity
