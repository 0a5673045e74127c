// Executions: the steps whose pc lies in [pc_lo, pc_hi) between two EIDs,
// forwards or backwards, optionally thinned to at most one hit per window
// of `resolution` EIDs (a timeline of where code ran, as Tenet draws it).
// Chunks whose pc summaries hold no pc in the range are never decoded,
// and with a resolution the rest of a window is skipped after a hit.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "engine/query/chunk_walk.h"
#include "engine/query/hit_iterator.h"
#include "engine/query/query_types.h"
#include "engine/trace.h"

namespace ttd::query {

struct ExecutionQuery {
  uint64_t pc_lo = 0, pc_hi = 0;  // [pc_lo, pc_hi); a single pc is [pc, pc + 1)
  QueryStart start;
  std::optional<uint64_t> tid;
  // 0: every hit. Otherwise windows [from + k*resolution, from + (k+1)*resolution)
  // of the query's window, at most one hit each (the first in the query's direction).
  uint64_t resolution = 0;
  CancelCheck cancel;
};

struct Execution {
  uint64_t eid = 0, tid = 0, pc = 0;
  uint32_t size = 0;
  fmt::StepKind kind = fmt::StepKind::Instruction;
  ResumeToken next;
};

// A pc range from a start and a length (length 1 = one pc); errors for an
// empty or wrapping range.
Status check_pc_range(uint64_t lo, uint64_t hi);

Status scan_executions(const Trace& t, const ExecutionQuery& q, const std::function<bool(const Execution&)>& fn);
Result<std::vector<Execution>> find_executions(const Trace& t, const ExecutionQuery& q, size_t limit);

using Executions = HitIterator<ExecutionQuery, Execution>;
Executions executions(std::shared_ptr<const Trace> t, ExecutionQuery q);

}  // namespace ttd::query
