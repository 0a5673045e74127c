// Single steps for the engine target without replaying from a keyframe at
// every step back.
//
// Debuggers and people step in both directions alternately (stepi,
// reverse-stepi, stepi, ...; gdb's reverse-next is a run of reverse-stepi
// with forward steps in between). Cursor::seek backwards reloads the chunk's
// keyframe and replays up to a chunk of steps; a Cursor cannot be copied
// (its state exists only by replay). So the pair keeps a second cursor one
// step away from the position and swaps the two: a step to where the spare
// stands is a swap, a step back to elsewhere moves the spare (a short forward
// replay when it is just behind) and swaps, leaving the old position as the
// spare for the next step forward.
//
// The fast path is for single-threaded traces, where the thread's next and
// previous steps are simply EID + 1 and EID - 1; it reports exactly what
// Cursor::step_forward / step_backward report there. Other traces, and
// threads the trace does not have, go to the cursor's own step functions.
#pragma once
#include <memory>
#include <optional>

#include "engine/cursor.h"
#include "engine/trace.h"

namespace ttd::cli {

class CursorPair {
 public:
  explicit CursorPair(std::shared_ptr<const Trace> trace);

  // The position; everything but single steps works on it directly.
  Cursor& here() { return *here_; }
  const Cursor& here() const { return *here_; }

  Stop step_forward(std::optional<uint64_t> tid);
  Stop step_backward(std::optional<uint64_t> tid);

 private:
  // The sole thread's tid when the fast path applies to a step of `tid`.
  std::optional<uint64_t> sole_thread(std::optional<uint64_t> tid) const;
  // Puts the spare at eid and swaps it in; false (nothing changed) when the
  // spare cannot get there cheaply enough or seeking failed.
  bool swap_in(uint64_t eid, bool allow_keyframe);

  std::shared_ptr<const Trace> trace_;
  std::unique_ptr<Cursor> here_;
  std::unique_ptr<Cursor> spare_;  // created at the first single step
};

}  // namespace ttd::cli
