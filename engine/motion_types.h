// The engine's motion requests and answers, shared by the cursor, the
// timeline, the chunk scanners and the history queries: what stops a run
// and where and why a move stopped. The words in them (Direction,
// WatchKind, StopKind, InterruptCheck) are state/motion_vocabulary.h's,
// which gdbstub/ and dap/ use too, so the adapters (tools/ttd/engine_target.*,
// dap/model/) pass them through; only the wire forms are translated.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "state/error.h"
#include "state/motion_vocabulary.h"

namespace ttd {

struct StopConditions {
  std::vector<uint64_t> breakpoints;  // pcs
  std::vector<Watchpoint> watchpoints;
};

struct Stop {
  StopKind kind = StopKind::Step;
  uint64_t eid = 0;      // position after the stop
  uint64_t tid = 0;      // thread to report
  uint64_t addr = 0;     // breakpoint pc, or the start of the watched range that was hit
  WatchKind watch = WatchKind::Write;  // the watchpoint's kind
  uint64_t hit_eid = 0;  // watchpoints: the step that made the access
  // Watchpoints: which StopConditions::watchpoints entry, the first watched
  // byte the access touched, and the thread that made the access.
  size_t watch_index = 0;
  uint64_t access_addr = 0;
  uint64_t access_tid = 0;
  // Steps over and out of calls: instruction steps on the way whose class
  // (call, return, ...) was unknown (no code bytes), so the frame count may
  // be wrong; 0 when the answer is certain.
  uint64_t unclassified = 0;
  // Set when a chunk the move had to read could not be (a damaged index):
  // the move stopped before it (kind Interrupted) and the front end must
  // report this error rather than a stop.
  std::optional<Error> error{};
};

}  // namespace ttd
