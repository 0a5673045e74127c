// Aligns two runs of one program by control flow: their step streams
// (pc and kind of every step, effects skipped) walked side by side. While
// the runs take the same path their EIDs match; the first step whose pc or
// kind differs is the divergence, and the step before it (same pc in both)
// is the branch that went differently. Register and memory values are not
// compared here: a value that differs without changing the path (rdtsc at
// start-up) is no divergence.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>

#include "engine/trace.h"

namespace ttd::diff {

struct PathDivergence {
  uint64_t eid = 0;  // the first step that differs (the same EID in both runs)
  // Whether each run has a step there (false: that run ended first).
  bool a_has_step = false, b_has_step = false;
  uint64_t pc_a = 0, pc_b = 0;
};

// nullopt: both runs took the same path to their ends (equal step counts).
// cancel is polled between batches.
Result<std::optional<PathDivergence>> first_path_divergence(const Trace& a, const Trace& b,
                                                             const std::function<bool()>& cancel = {});

}  // namespace ttd::diff
