// Searches over the step stream that consult the summary filters
// (engine/summary_filter_gate.h) and chunk summaries first and decode only
// the chunks that can hold a hit: the mechanism behind
// continue / reverse-continue / watchpoints (a step's effects included).
// Chunks are decoded by the engine's one chunk decoder (engine/chunk_steps.h),
// which the history queries use too.
// Per-thread steps and the step planner read the cached pc stream instead
// (engine/step_timeline.h).
#pragma once
#include <cstdint>
#include <optional>

#include "engine/motion_types.h"
#include "engine/trace.h"

namespace ttd {

struct ScanHit {
  bool found = false;
  bool interrupted = false;
  uint64_t eid = 0;         // stop position
  StopKind kind = StopKind::Breakpoint;
  uint64_t addr = 0;        // breakpoint pc or watchpoint address
  WatchKind watch = WatchKind::Write;
  uint64_t access_eid = 0;  // watchpoints: the accessing step
  size_t watch_index = 0;   // watchpoints: which StopConditions entry
  uint64_t access_tid = 0;  // watchpoints: the thread that made the access
  // A chunk that could not be read (damaged index): the scan stopped there
  // instead of skipping it; the error names the index and offset.
  std::optional<Error> error{};
};

class ChunkScan {
 public:
  explicit ChunkScan(const Trace& t);
  // Earliest stop position > start (see Timeline::run), looking at steps
  // below `until` only (later hits may be missed; the caller bounds them).
  ScanHit find_stop_forward(uint64_t start, const StopConditions& c, const InterruptCheck& interrupted,
                            uint64_t until = UINT64_MAX) const;
  // Latest stop position < start (see Timeline::run), looking at steps from
  // `from` up only.
  ScanHit find_stop_backward(uint64_t start, const StopConditions& c, const InterruptCheck& interrupted,
                             uint64_t from = 0) const;
  // Whether step eid accesses a watched range of c (found: the first such
  // access, its stop position per the architecture's rule for `dir`).
  ScanHit watched_access_at(uint64_t eid, const StopConditions& c, Direction dir) const;

 private:
  bool may_hit(size_t chunk, const StopConditions& c) const;
  // Visits the steps of one chunk in order: fn(step, accesses); false when
  // the chunk cannot be read.
  template <class Fn>
  bool scan_chunk(size_t chunk, bool want_accesses, const StopConditions& c, Fn&& fn) const;

  const Trace& trace_;
};

}  // namespace ttd
