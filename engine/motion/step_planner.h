// Where a step lands: the source-line and instruction stepping rules of
// gdb and rr, decided on the pc stream alone (no state replay), in both
// directions.
//
// Frames are told apart by counting calls and returns of the stepping
// thread (depth 0 = the frame where the step starts). Line rules:
//  - A step lands at a "line boundary": a statement-start pc (the line
//    table's is_stmt rows, excluding function entries, which belong to
//    the prologue) whose line differs from the previous step of the same
//    frame, or that jumps back within the line (a loop iteration). The
//    first statement of a frame the step had not seen counts too.
//  - next: the first boundary in this frame or an outer one (calls are run
//    through); stepIn: the first boundary anywhere; stepOut: the first
//    step back in the caller (its mid-line return address, as gdb's finish).
//  - Returning into a caller without line information stops right there
//    instead of running on to the end of the program.
//  - stepBack (reverse next): the start of the latest line instance that
//    began before here in this frame; from the first line of a function
//    that is the start of the caller's line that made the call ("step back
//    out of a function"). Reverse stepOut stops at the call instruction.
// Instruction granularity: stepIn = one instruction of the thread, next =
// one instruction of this frame (over calls), in either direction.
// A breakpoint pc met on the way (any thread) stops the step there.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "engine/motion/line_table.h"
#include "engine/motion_types.h"
#include "engine/step_timeline.h"
#include "engine/query/instruction_class.h"

namespace ttd {

// The engine's instruction classes (call, return, jump, other, unknown):
// only calls and returns move the stepper's frame depth.
using Flow = query::InsnClass;

enum class StepMotion : uint8_t { Over, In, Out };
enum class StepUnit : uint8_t { Line, Instruction };

// What the stepper needs to know about a pc: its line, and what the
// instruction does to the call stack (the engine's classifier; see
// Timeline::step_by).
class PcFacts : public LineTable {
 public:
  // What the instruction step eid runs (at pc) does to the call stack.
  virtual Flow flow(uint64_t eid, uint64_t pc) = 0;
};

struct StepRequest {
  StepMotion motion = StepMotion::Over;
  Direction direction = Direction::Forward;
  StepUnit granularity = StepUnit::Line;
  uint32_t tidx = 0;
  uint64_t from = 0;  // the current position (EID)
  std::span<const uint64_t> breakpoints;  // sorted pcs
};

struct StepResult {
  enum class Kind : uint8_t { Target, Breakpoint, HistoryStart, HistoryEnd, Interrupted, Corrupt } kind = Kind::Target;
  uint64_t eid = 0;
  uint64_t pc = 0;
};

StepResult plan_step(StepTimeline& timeline, PcFacts& facts, const StepRequest& req, const InterruptCheck& interrupted);

}  // namespace ttd
