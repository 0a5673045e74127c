// A position in a trace and the machine state there, with the moves a
// debugger needs in both directions. Semantics follow rr:
//  - step_forward(t): run until thread t's next step is about to execute
//    (the step at the current position runs first if it is t's);
//    step_backward(t): go to the latest step of t strictly before here.
//  - run_forward: stop at the first later position whose pc is a
//    breakpoint (the starting step always runs), or after/at a step that
//    accesses a watched range (timing per ArchDesc::watch_timing), or at
//    the end of history.
//  - run_backward: stop at the latest breakpoint hit strictly before here
//    (a breakpoint at the starting pc is not reported), at the latest
//    watched access (before it on x86, after it elsewhere), or at the
//    start of history.
// Searches skip whole chunks by their summaries and decode only chunks
// that can hold a hit.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/trace.h"

namespace ttd {

enum class WatchKind : uint8_t { Write, Read, Access };

struct Watchpoint {
  uint64_t addr = 0, len = 1;
  WatchKind kind = WatchKind::Write;
};

struct StopConditions {
  std::vector<uint64_t> breakpoints;  // pcs
  std::vector<Watchpoint> watchpoints;
};

enum class StopKind : uint8_t { Step, Breakpoint, Watchpoint, HistoryBegin, HistoryEnd, Interrupted };

struct Stop {
  StopKind kind = StopKind::Step;
  uint64_t eid = 0;      // position after the stop
  uint64_t tid = 0;      // thread to report
  uint64_t addr = 0;     // breakpoint pc, or the watched address that was hit
  WatchKind watch = WatchKind::Write;
  uint64_t hit_eid = 0;  // for watchpoints: the step that made the access
};

// Polled now and then during long runs; returning true stops the run with
// StopKind::Interrupted.
using InterruptCheck = std::function<bool()>;

class Cursor {
 public:
  explicit Cursor(std::shared_ptr<const Trace> trace);
  ~Cursor();
  Cursor(Cursor&&) noexcept;

  const Trace& trace() const { return *trace_; }
  uint64_t eid() const { return eid_; }
  // The machine state before step eid() runs.
  const MachineState& state() const { return state_; }
  // The thread of the step at eid() (at the end: the thread of the last step).
  uint64_t current_tid() const;

  // The step at eid() (nullopt at the end of the trace).
  std::optional<fmt::StepInfo> current_step() const;

  // Positions at eid (0..step_count()). Errors for an EID out of range.
  Status seek(uint64_t eid);

  Stop step_forward(std::optional<uint64_t> tid = std::nullopt);
  Stop step_backward(std::optional<uint64_t> tid = std::nullopt);
  Stop run_forward(const StopConditions& c, const InterruptCheck& interrupted = {});
  Stop run_backward(const StopConditions& c, const InterruptCheck& interrupted = {});

 private:
  struct Impl;
  std::shared_ptr<const Trace> trace_;
  uint64_t eid_ = 0;
  MachineState state_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ttd
