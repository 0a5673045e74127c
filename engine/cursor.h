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

// How a seek restores memory. Lazy: registers, mappings and the page map
// as lazy groups; a page is read (through the trace's page cache) when a
// query, a debugger, a watchpoint or the replay first touches it, and no
// page is kept across a keyframe restore. Eager: every page of the
// keyframe at the seek (only pages that differ from the state at hand are
// fetched); for comparisons and benchmarks.
enum class PageLoading { Lazy, Eager };

class Cursor {
 public:
  // Past this many pages held in memory (read or written since the last
  // keyframe restore, all processes), a seek restores from the keyframe
  // even where replaying forward from here would be shorter: 64 MiB.
  static constexpr size_t kMaxResidentPages = 16384;

  explicit Cursor(std::shared_ptr<const Trace> trace, PageLoading loading = PageLoading::Lazy);
  // A cursor at eid, without the seek to 0 the constructor makes (a
  // one-shot query reads no keyframe, stream or chunk-table group it does
  // not need). Errors as seek()'s.
  static Result<Cursor> at(std::shared_ptr<const Trace> trace, uint64_t eid, PageLoading loading = PageLoading::Lazy);
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

  // Positions at eid (0..step_count()). Errors for an EID out of range,
  // for a corrupt chunk and for a page the replay writes that cannot be
  // read. A corrupt page nothing touches is not read, hence not reported.
  Status seek(uint64_t eid);

  // The last page a read of state() could not get from the index since the
  // last seek (its bytes read as unknown), naming the index file, offset
  // and address; nullopt if none.
  std::optional<Error> memory_fault() const { return state_.memory_fault(); }

 private:
  struct Impl;
  struct Unpositioned {};
  Cursor(std::shared_ptr<const Trace> trace, PageLoading loading, Unpositioned);
  // Applies the pending step and those after it until eid() == target
  // (within reach: the chunk at hand, then the next ones).
  Status replay_to(uint64_t target);
  std::shared_ptr<const Trace> trace_;
  uint64_t eid_ = 0;
  MachineState state_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ttd
