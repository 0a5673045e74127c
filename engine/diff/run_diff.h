// `ttd diff A B`: where two runs of one program part ways. The runs are
// aligned by control flow (control_flow_align.h): the report names the
// first step where the paths differ, the branch before it and the inputs
// that made it go differently (divergence_detail.h), then the call-level
// differences over the whole runs (call_tree_diff.h). Runs whose paths are
// equal are identical, whatever values differ along the way that never
// changed the path (the recorder's rdtsc at dynamic-loader start-up).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "engine/diff/call_tree_diff.h"
#include "engine/diff/control_flow_align.h"
#include "engine/diff/divergence_detail.h"
#include "engine/diff/divergence_origin.h"

namespace ttd::diff {

struct DiffOptions {
  CallDiffOptions calls;
  bool compare_calls = true;
  bool origins = true;  // trace the origins of the inputs that decided the branch
  OriginLimits origin_limits;
  // Accept traces that name different programs (or none).
  bool any_program = false;
  std::function<bool()> cancel;
};

struct DiffReport {
  uint64_t steps_a = 0, steps_b = 0;
  std::optional<PathDivergence> divergence;   // nullopt: same path, same length
  std::optional<BranchExplanation> branch;    // when the divergence follows a step both runs took
  std::vector<InputOrigin> origins;           // of the branch's deciding inputs (divergence_origin.h)
  std::optional<CallDiff> calls;
  bool identical() const { return !divergence && (!calls || calls->total == 0); }
};

// Refuses (an error naming both traces) traces of different architectures
// or of different programs (the programs they name, else their first pc).
Status check_comparable(const Trace& a, const Trace& b, bool any_program);

Result<DiffReport> diff_runs(std::shared_ptr<const Trace> a, std::shared_ptr<const Trace> b, const DiffOptions& o);

}  // namespace ttd::diff
