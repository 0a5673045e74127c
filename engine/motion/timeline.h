// The engine's one place for motion: a position in a trace (with the
// machine state there) and every way to move it that gdb, DAP and Python
// ask for, in both directions. The front ends translate their protocol's
// requests into these calls and the Stop back into replies; they decode
// no chunks, time no watched accesses and classify no instructions.
//
//  - step(): rr's stepi. Forward runs until thread t's next step is about
//    to execute (the step at the position runs first if it is t's);
//    backward goes to t's latest step strictly before here.
//  - step_by(): next / step in / step out by source line (given a line
//    table) or by instruction, both ways (engine/motion/step_planner.h);
//    calls and returns come from the engine's one instruction classifier
//    (engine/query/pc_class_cache.h: trace code bytes, then the program).
//  - run(): continue. Forward stops at the first later position whose pc
//    is a breakpoint (the starting step always runs), or at a watched
//    access (engine/watch_rule.h: any overlap, timing per architecture),
//    or at the end of history; backward at the latest breakpoint hit
//    strictly before here (a breakpoint at the starting pc is not
//    reported), the latest watched access, or the start of history.
//  - step() and step_by() stop early at a watched access on the way, at
//    the position the architecture's rule gives, unless that is where the
//    step started.
// Searches skip whole chunks by their summaries (engine/chunk_scan.h) and
// decode only chunks that can hold a hit; moves back reuse a second
// cursor (engine/motion/cursor_pair.h).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "engine/cursor.h"
#include "engine/motion/cursor_pair.h"
#include "engine/motion/step_planner.h"
#include "engine/motion_types.h"
#include "engine/step_timeline.h"
#include "engine/watch_rule.h"

namespace ttd {
namespace query {
class PcClassCache;
}
struct ScanHit;

struct RunOptions {
  // For debuggers that step over a watched access themselves (gdb on
  // architectures whose trap comes before the access): a watched access
  // right at the start is reported at once, without moving — going
  // forward the step about to run, going backward the step just undone.
  bool report_access_at_start = false;
};

struct StepByRequest {
  StepMotion motion = StepMotion::Over;
  Direction direction = Direction::Forward;
  StepUnit unit = StepUnit::Line;  // Line needs a line table; without one, Instruction
  std::optional<uint64_t> tid;     // default: the current thread
  StopConditions conditions;       // breakpoints met on the way (any thread), watchpoints
};

class Timeline {
 public:
  explicit Timeline(std::shared_ptr<const Trace> trace);
  ~Timeline();

  const Trace& trace() const { return *trace_; }
  const Cursor& cursor() const { return cursors_.here(); }
  uint64_t eid() const { return cursor().eid(); }
  const MachineState& state() const { return cursor().state(); }
  uint64_t current_tid() const { return cursor().current_tid(); }
  std::optional<fmt::StepInfo> current_step() const { return cursor().current_step(); }

  Status seek(uint64_t eid) { return cursors_.go(eid); }

  Stop step(Direction dir, std::optional<uint64_t> tid = std::nullopt, std::span<const Watchpoint> watches = {});
  Stop run(Direction dir, const StopConditions& c, const InterruptCheck& interrupted = {}, RunOptions options = {});
  // Errors: a thread the trace does not have, a corrupt index.
  Result<Stop> step_by(const StepByRequest& req, LineTable* lines, const InterruptCheck& interrupted = {});

  // The watched bytes around a watchpoint stop's access (watch_rule.h).
  Result<WatchedBytes> watched_bytes(const Stop& stop, const Watchpoint& w);

  // The next (forward: after here) or last (backward: before here)
  // instruction step of any thread whose pc is in `pcs` (sorted).
  std::optional<uint64_t> next_execution(Direction dir, std::span<const uint64_t> pcs);

 private:
  // A watched access by steps [from, to) that stops a step that started at
  // from (forward) or to (backward).
  std::optional<Stop> watch_on_the_way(uint64_t from, uint64_t to, Direction dir, std::span<const Watchpoint> watches);
  Stop at_watch_hit(const ScanHit& hit);

  std::shared_ptr<const Trace> trace_;
  CursorPair cursors_;
  std::unique_ptr<Cursor> scratch_;  // a third position, for values before a watched access
  StepTimeline pcs_;
  std::unique_ptr<query::PcClassCache> classes_;
};

}  // namespace ttd
