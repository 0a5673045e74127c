// Value search, in space and in time: where a byte pattern lies in memory
// at an EID, and the first position at which it appears. Only known bytes
// match (an unknown byte never equals anything).
//
// In space, the state at the EID comes from the nearest keyframe plus at
// most one chunk of replay. In time, memory changes are replayed from the
// window's start, but only chunks whose summaries show memory changes (in
// the searched range, when one is given) are decoded; the pattern is
// checked only around the bytes each step changed.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/query/chunk_walk.h"
#include "engine/query/query_types.h"
#include "engine/trace.h"

namespace ttd::query {

// "deadbeef", "de ad be ef", "0xdeadbeef": bytes in memory order. Errors
// for an empty pattern, an odd number of digits, or a non-hex character.
Result<std::vector<uint8_t>> parse_hex_bytes(const std::string& text);

// Longest pattern a search accepts unless the caller raises it (`ttd
// search --max-pattern`, `monitor search --max-pattern`). The scan is
// linear in memory plus pattern, but a search in time re-examines up to
// twice the pattern's length around every byte a step changes.
inline constexpr size_t kDefaultMaxPattern = 4096;
// Error naming the size and the limit when the pattern is longer than max.
Status check_pattern_size(size_t pattern_len, size_t max);

struct ValueMatch {
  uint64_t pid = 0;
  uint64_t addr = 0;
};

struct SpaceSearch {
  std::vector<uint8_t> pattern;
  uint64_t at = 0;                     // position (0 .. step count)
  std::optional<AddressRange> within;  // the whole pattern must lie inside
  std::optional<uint64_t> pid;
  size_t limit = 0;                    // 0 = all matches
};
// How a search in space may be stopped and how long a pattern it takes
// (apart from SpaceSearch, whose callers fill it positionally).
struct SearchControl {
  CancelCheck cancel;  // polled every few pages
  size_t max_pattern = kDefaultMaxPattern;
};
// Matches in address order (per process, by pid).
Result<std::vector<ValueMatch>> search_memory(std::shared_ptr<const Trace> t, const SpaceSearch& q,
                                              const SearchControl& control = {});
// The same, each match handed to fn as it is found (fn returns false to
// stop); nothing is collected, so memory does not grow with the matches.
Status scan_memory(std::shared_ptr<const Trace> t, const SpaceSearch& q, const std::function<bool(const ValueMatch&)>& fn,
                   const SearchControl& control = {});

struct TimeSearch {
  std::vector<uint8_t> pattern;
  EidWindow window;                    // positions from .. to (inclusive) are checked
  std::optional<AddressRange> within;
  std::optional<uint64_t> pid;
  CancelCheck cancel;
  size_t max_pattern = kDefaultMaxPattern;
};
struct Appearance {
  uint64_t eid = 0;                     // first position whose state holds the pattern
  std::optional<uint64_t> writer_eid;   // the step that completed it (eid - 1), unless present at window.from
  uint64_t pid = 0;
  uint64_t addr = 0;
};
Result<std::optional<Appearance>> first_appearance(std::shared_ptr<const Trace> t, const TimeSearch& q);

}  // namespace ttd::query
