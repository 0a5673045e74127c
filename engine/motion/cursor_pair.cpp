#include "engine/motion/cursor_pair.h"

#include <utility>

namespace ttd {

namespace {
// How far behind its target the spare may be for a forward move to use it:
// replaying a few steps keeps the old position as the spare, which makes the
// next step back a swap; much more would cost more than it saves.
constexpr uint64_t kNearSteps = 64;
}  // namespace

CursorPair::CursorPair(std::shared_ptr<const Trace> trace)
    : trace_(trace), here_(std::make_unique<Cursor>(std::move(trace))) {}

bool CursorPair::swap_in(uint64_t eid, bool allow_keyframe) {
  if (!spare_) {
    if (!allow_keyframe) return false;
    spare_ = std::make_unique<Cursor>(trace_);
  }
  if (spare_->eid() != eid) {
    bool near = spare_->eid() <= eid && eid - spare_->eid() <= kNearSteps;
    if (!near && !allow_keyframe) return false;
    if (!spare_->seek(eid)) return false;
  }
  std::swap(here_, spare_);
  return true;
}

Status CursorPair::go(uint64_t eid) {
  uint64_t from = here_->eid();
  if (eid == from) return here_->seek(eid);  // validates; a no-op in range
  // Forward: the spare when it stands just behind (or at) the target, else
  // a replay from here. Backward: a seek would reload the keyframe anyway;
  // the spare is never a worse place to start from.
  if (eid > from ? swap_in(eid, false) : swap_in(eid, true)) return {};
  return here_->seek(eid);
}

}  // namespace ttd
