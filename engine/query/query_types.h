// Vocabulary shared by every history query: the EID window a query runs
// over, its direction, the address range it watches, and the resume token
// that lets a caller continue a query where a limit stopped it.
//
// Resume tokens are positions plus a count of hits already delivered at
// that step, because one step can make several hits (an `add [m], 1`
// reads and writes the same bytes) and a limit may fall between them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "engine/motion_types.h"
#include "state/error.h"

namespace ttd {
class Trace;
}

namespace ttd::query {

using ttd::Direction;  // engine/motion_types.h

// Steps [from, to). Forward queries walk from `from` up, backward queries
// from `to - 1` down.
struct EidWindow {
  uint64_t from = 0, to = 0;
};

// Bytes [addr, addr + len), len > 0, not wrapping past 2^64.
struct AddressRange {
  uint64_t addr = 0, len = 0;
  uint64_t end() const { return addr + len; }
  bool overlaps(uint64_t a, uint64_t n) const { return n && a < addr + len && addr < a + n; }
};

// Continue at step `eid` (inclusive, in the query's direction), skipping
// the first `skip` hits of that step.
struct ResumeToken {
  uint64_t eid = 0;
  uint32_t skip = 0;
  bool operator==(const ResumeToken&) const = default;
};
// "EID" or "EID+SKIP".
std::string to_string(const ResumeToken& t);
Result<ResumeToken> parse_resume_token(const std::string& s);

// Resolves optional bounds to a window inside [0, step_count]; an EID past
// the end, a reversed or an empty window is an error naming the argument.
Result<EidWindow> make_window(const Trace& t, std::optional<uint64_t> from, std::optional<uint64_t> to);
// Checks a position (0 .. step_count inclusive).
Status check_position(const Trace& t, uint64_t eid, const std::string& what);
// Checks an address range: a zero length or one that wraps is an error.
Result<AddressRange> make_range(uint64_t addr, uint64_t len, const std::string& what = "range");

// Where a query starts: its window and direction, and optionally a resume
// token (from a hit of an earlier run of the same query, so it lies inside
// the window). "From EID n backwards" is the window [0, n).
struct QueryStart {
  EidWindow window;
  Direction direction = Direction::Forward;
  std::optional<ResumeToken> resume;
};
// A query start from optional bounds, an optional starting EID `at` (the
// window's lower end forwards, its upper end backwards; giving both it and
// that bound is an error) and an optional resume token. Errors name the
// argument ("from", "to", "at", "resume").
Result<QueryStart> resolve_window(const Trace& t, std::optional<uint64_t> from, std::optional<uint64_t> to,
                                  std::optional<uint64_t> at, bool backward, std::optional<ResumeToken> resume);

// The first step to visit and the hits to skip there. Errors when the
// window is empty, reversed or past the end of the trace, or the token
// lies outside it.
struct ScanPlan {
  uint64_t first = 0;  // forward: lowest step; backward: highest step
  uint64_t last = 0;   // inclusive other end
  uint32_t skip = 0;
};
Result<ScanPlan> plan_scan(const Trace& t, const QueryStart& q);

}  // namespace ttd::query
