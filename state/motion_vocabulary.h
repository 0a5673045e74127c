// The words every layer that moves through a trace shares: which way a move
// goes, what a watchpoint watches (and the watchpoint itself), why a move stopped, and how a long move
// is told to stop. They live here, below engine/, gdbstub/ and dap/, because
// the two protocol front ends may not include engine/ (docs/design.md,
// "Who owns motion") and the three used to declare them once each.
//
// Only what means the same everywhere belongs here. What a protocol puts on
// the wire stays at the wire and is translated once there: gdb's Z2/Z3/Z4
// packet numbers and its stop replies (T05 swbreak/hwbreak, T02, W),
// DAP's "read"/"write"/"readWrite" access types and its stop reasons.
#pragma once
#include <cstdint>
#include <functional>

namespace ttd {

enum class Direction : uint8_t { Forward, Backward };

// What a watchpoint watches: writes, reads, or both (gdb's awatch, DAP's
// readWrite).
enum class WatchKind : uint8_t { Write, Read, Access };

// Bytes [addr, addr + len); any access of the kind that overlaps one of
// them counts.
struct Watchpoint {
  uint64_t addr = 0, len = 1;
  WatchKind kind = WatchKind::Write;
  bool operator==(const Watchpoint&) const = default;
};

// Why a move stopped: it did what it was asked (a step), it reached a
// breakpoint or a watched access, it ran into either end of the trace, or
// it was interrupted.
enum class StopKind : uint8_t { Step, Breakpoint, Watchpoint, HistoryBegin, HistoryEnd, Interrupted };

// Polled now and then during long moves and scans; returning true stops the
// move with StopKind::Interrupted (queries: an error saying so). The client
// side makes it cheap (it rate-limits its own polling) and may set what it
// reads from another thread.
using InterruptCheck = std::function<bool()>;

}  // namespace ttd
