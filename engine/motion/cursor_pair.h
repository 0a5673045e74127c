// Two cursors for one position, so that moving back a little is not a
// keyframe replay every time.
//
// Debuggers and people step in both directions alternately (stepi,
// reverse-stepi, stepi, ...; gdb's reverse-next is a run of reverse-stepi
// with forward steps in between). Cursor::seek backwards reloads the
// chunk's keyframe and replays up to a chunk of steps; a Cursor cannot be
// copied (its state exists only by replay). So the pair keeps a second
// cursor near the position and swaps the two: a move to where the spare
// stands is a swap, a move back to elsewhere moves the spare (a short
// forward replay when it is just behind) and swaps, leaving the old
// position as the spare for the next move forward.
#pragma once
#include <memory>

#include "engine/cursor.h"

namespace ttd {

class CursorPair {
 public:
  explicit CursorPair(std::shared_ptr<const Trace> trace);

  // The position; reads go to it directly.
  const Cursor& here() const { return *here_; }

  // Moves the position to eid (errors as Cursor::seek; nothing changes then).
  Status go(uint64_t eid);

 private:
  // Puts the spare at eid and swaps it in; false (nothing changed) when the
  // spare cannot get there cheaply enough or seeking failed.
  bool swap_in(uint64_t eid, bool allow_keyframe);

  std::shared_ptr<const Trace> trace_;
  std::unique_ptr<Cursor> here_;
  std::unique_ptr<Cursor> spare_;  // created at the first move back
};

}  // namespace ttd
