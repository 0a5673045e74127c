// A position in a trace and the machine state there, reached by seeking
// (a keyframe, then a replay of at most a chunk of steps; forward within
// reach, a replay from here). Moving by steps, breakpoints and watchpoints
// is the Timeline's (engine/motion/timeline.h), which owns cursors.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/motion_types.h"
#include "engine/trace.h"

namespace ttd {

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

 private:
  struct Impl;
  std::shared_ptr<const Trace> trace_;
  uint64_t eid_ = 0;
  MachineState state_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ttd
