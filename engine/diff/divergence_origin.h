// Where the values that sent two runs different ways came from: for each
// differing input of the instruction that decided the branch (the flag
// setter when there is one, else the branch itself), the engine's origin
// answer (engine/query/origin.h) in each run, kept short by small depth,
// breadth and node limits. An input that is not a location (memory read
// at different addresses in the two runs) gets no origin.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/diff/divergence_detail.h"
#include "engine/query/origin.h"

namespace ttd::diff {

// Limits of the diff's origin chains (docs/security.md).
constexpr uint32_t kDiffOriginDepth = 4;
constexpr uint32_t kDiffOriginBreadth = 2;
constexpr uint32_t kDiffOriginNodes = 32;
constexpr size_t kDiffOriginInputs = 4;  // differing inputs followed

struct InputOrigin {
  std::string what;     // the input (ValueDelta::what)
  uint64_t eid_a = 0, eid_b = 0;  // the step that read it, in each run
  // The answer in each run; an error message when it could not be traced.
  std::optional<query::OriginGraph> a, b;
  std::string error_a, error_b;
};

struct OriginLimits {
  uint32_t depth = kDiffOriginDepth, breadth = kDiffOriginBreadth, nodes = kDiffOriginNodes;
  std::function<bool()> cancel;
};

// Origins of the differing inputs of `why.flags_set_by` if present, else of
// `why.branch`, at most kDiffOriginInputs of them.
std::vector<InputOrigin> trace_input_origins(const Trace& a, const Trace& b, const BranchExplanation& why,
                                             const OriginLimits& limits);

}  // namespace ttd::diff
