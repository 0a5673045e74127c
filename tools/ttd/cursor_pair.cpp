#include "tools/ttd/cursor_pair.h"

#include <utility>

namespace ttd::cli {

namespace {
// How far behind its target the spare may be for a forward step to use it:
// replaying a few steps keeps the old position as the spare, which makes the
// next step back a swap; much more would cost more than it saves.
constexpr uint64_t kNearSteps = 64;
}  // namespace

CursorPair::CursorPair(std::shared_ptr<const Trace> trace)
    : trace_(trace), here_(std::make_unique<Cursor>(std::move(trace))) {}

std::optional<uint64_t> CursorPair::sole_thread(std::optional<uint64_t> tid) const {
  const auto& threads = trace_->threads();
  if (threads.size() != 1) return std::nullopt;
  if (tid && *tid != threads.front().tid) return std::nullopt;
  return threads.front().tid;
}

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

Stop CursorPair::step_forward(std::optional<uint64_t> tid) {
  auto t = sole_thread(tid);
  uint64_t from = here_->eid();
  // The last step and the end of the trace: the cursor reports the end.
  if (!t || from + 1 >= trace_->step_count()) return here_->step_forward(tid);
  uint64_t to = from + 1;
  if (!swap_in(to, false) && !here_->seek(to)) return here_->step_forward(tid);
  return Stop{StopKind::Step, to, *t};
}

Stop CursorPair::step_backward(std::optional<uint64_t> tid) {
  auto t = sole_thread(tid);
  uint64_t from = here_->eid();
  if (!t || from == 0) return here_->step_backward(tid);  // the start of history
  uint64_t to = from - 1;
  // A seek back from here would reload the keyframe anyway; the spare is
  // never a worse place to start from.
  if (!swap_in(to, true)) return here_->step_backward(tid);
  return Stop{StopKind::Step, to, *t};
}

}  // namespace ttd::cli
