// The memory ranges the reader has given values for, so that an
// instrumentation-off gap can make exactly those unknown (the sink cannot
// forget "all memory" in one effect: its memory is sparse and paged).
// Byte ranges, merged when they touch; a two-entry cache keeps the common
// case (stack and one data area, again and again) off the map.
#pragma once
#include <cstdint>
#include <map>

#include "formats/common/trace_sink.h"

namespace ttd::fmt::umtrace {

class MemoryTracker {
 public:
  void note(uint64_t addr, uint64_t size);
  // mem_unknown for every noted range, then forgets them.
  void forget_all(TraceSink& sink, uint64_t pid);
  size_t range_count() const { return ranges_.size(); }

 private:
  struct Cached {
    uint64_t lo = 1, hi = 0;  // empty
  };
  std::map<uint64_t, uint64_t> ranges_;  // start -> end (exclusive), disjoint, not touching
  Cached cache_[2];
  unsigned next_cache_ = 0;
};

}  // namespace ttd::fmt::umtrace
