#include "engine/motion/step_planner.h"

#include <algorithm>
#include <map>

namespace ttd {

namespace {

using Kind = StepResult::Kind;

bool is_breakpoint(std::span<const uint64_t> bps, uint64_t pc) { return std::binary_search(bps.begin(), bps.end(), pc); }

Kind end_kind(ScanEnd e, Direction d) {
  switch (e) {
    case ScanEnd::Interrupted: return Kind::Interrupted;
    case ScanEnd::Corrupt: return Kind::Corrupt;
    default: return d == Direction::Forward ? Kind::HistoryEnd : Kind::HistoryStart;
  }
}

// The last step of a frame the forward scan saw.
struct FrameMark {
  std::optional<uint64_t> key;
  uint64_t pc = 0;
};

StepResult step_forward(StepTimeline& tl, PcFacts& facts, const StepRequest& r, const InterruptCheck& interrupted) {
  StepResult out;
  bool started = false;
  int depth = 0;
  std::map<int, FrameMark> marks;
  bool line = r.granularity == StepUnit::Line;
  ScanEnd end = tl.forward(
      r.from,
      [&](uint64_t eid, const TimelineStep& s) {
        if (!s.is_code()) return true;
        if (started && is_breakpoint(r.breakpoints, s.pc)) {
          out = {Kind::Breakpoint, eid, s.pc};
          return false;
        }
        if (s.tidx != r.tidx) return true;
        if (!started) {
          // The thread's current instruction: it runs first.
          started = true;
          marks[0] = {facts.line_key(s.pc), s.pc};
        } else {
          bool stop = false;
          if (r.motion == StepMotion::Out) {
            stop = depth < 0;
          } else if (!line) {
            stop = r.motion == StepMotion::In || depth <= 0;
          } else {
            std::optional<uint64_t> key = facts.line_key(s.pc);
            auto m = marks.find(depth);
            bool fresh_frame = m == marks.end();
            bool boundary = key && facts.statement_start(s.pc) &&
                            (fresh_frame || !m->second.key || *m->second.key != *key || s.pc <= m->second.pc);
            // Back in a caller that has no line information: stop here
            // rather than run to the end of the program.
            bool lineless_caller = depth < 0 && fresh_frame && !key;
            stop = (boundary && (r.motion == StepMotion::In || depth <= 0)) || lineless_caller;
            if (fresh_frame) marks[depth] = {key, s.pc};
            else marks[depth] = {key ? key : m->second.key, s.pc};
          }
          if (stop) {
            out = {Kind::Target, eid, s.pc};
            return false;
          }
        }
        Flow f = facts.flow(eid, s.pc);
        if (f == Flow::Call) {
          ++depth;
          marks.erase(depth);  // a new callee frame
        } else if (f == Flow::Return) {
          marks.erase(depth);
          --depth;
        }
        return true;
      },
      interrupted);
  if (end != ScanEnd::Stopped) out = {end_kind(end, Direction::Forward), 0, 0};
  return out;
}

StepResult step_backward(StepTimeline& tl, PcFacts& facts, const StepRequest& r, const InterruptCheck& interrupted) {
  StepResult out;
  bool line = r.granularity == StepUnit::Line;
  int depth = 0;         // of the step being visited, relative to the start frame
  int target_depth = 0;  // the frame whose line start we look for
  struct Candidate {
    uint64_t eid, pc, key;
  };
  std::optional<Candidate> cand;
  std::optional<std::pair<uint64_t, uint64_t>> pending_bp;  // (eid, pc) of a breakpoint behind the candidate
  ScanEnd end = tl.backward(
      r.from,
      [&](uint64_t eid, const TimelineStep& s) {
        if (!s.is_code()) return true;
        if (s.tidx == r.tidx) {
          Flow f = facts.flow(eid, s.pc);
          if (f == Flow::Return) ++depth;     // going back into the callee
          else if (f == Flow::Call) --depth;  // going back out to the caller
          bool stop = false;
          if (r.motion == StepMotion::Out) {
            stop = depth < 0;
          } else if (!line) {
            stop = r.motion == StepMotion::In || depth <= target_depth;
          } else if (depth <= target_depth) {
            if (depth < target_depth) {
              // Back out of the frame through its call instruction.
              if (cand) {  // the frame's first statement starts its first line
                out = {Kind::Target, cand->eid, cand->pc};
                return false;
              }
              target_depth = depth;
              if (!facts.line_key(s.pc)) {  // a caller without lines: stop at the call
                out = {Kind::Target, eid, s.pc};
                return false;
              }
            }
            std::optional<uint64_t> key = facts.line_key(s.pc);
            if (cand) {
              // s is the step before the candidate in its frame.
              bool boundary = !key || *key != cand->key || cand->pc <= s.pc;
              if (boundary) {
                out = {is_breakpoint(r.breakpoints, cand->pc) ? Kind::Breakpoint : Kind::Target, cand->eid, cand->pc};
                return false;
              }
              cand.reset();
              if (pending_bp) {
                out = {Kind::Breakpoint, pending_bp->first, pending_bp->second};
                return false;
              }
            }
            if (key && facts.statement_start(s.pc)) cand = Candidate{eid, s.pc, *key};
          }
          if (stop) {
            out = {is_breakpoint(r.breakpoints, s.pc) ? Kind::Breakpoint : Kind::Target, eid, s.pc};
            return false;
          }
        }
        if (is_breakpoint(r.breakpoints, s.pc)) {
          if (cand && cand->eid != eid) {
            if (!pending_bp) pending_bp = {eid, s.pc};
          } else {
            out = {Kind::Breakpoint, eid, s.pc};
            return false;
          }
        }
        return true;
      },
      interrupted);
  if (end == ScanEnd::Stopped) return out;
  if (end == ScanEnd::Exhausted && cand) return {Kind::Target, cand->eid, cand->pc};
  return {end_kind(end, Direction::Backward), 0, 0};
}

}  // namespace

StepResult plan_step(StepTimeline& timeline, PcFacts& facts, const StepRequest& req,
                     const InterruptCheck& interrupted) {
  if (req.direction == Direction::Forward) return step_forward(timeline, facts, req, interrupted);
  return step_backward(timeline, facts, req, interrupted);
}

}  // namespace ttd
