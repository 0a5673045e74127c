#include "formats/umtrace/memory_tracker.h"

#include <algorithm>

namespace ttd::fmt::umtrace {

void MemoryTracker::note(uint64_t addr, uint64_t size) {
  if (size == 0) return;
  uint64_t end = addr + size;
  if (end < addr) end = ~0ull;  // clamp a range that wraps the address space
  for (const Cached& c : cache_)
    if (addr >= c.lo && end <= c.hi) return;
  // Merge with every range that overlaps or touches [addr, end).
  auto it = ranges_.upper_bound(addr);
  if (it != ranges_.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= addr) it = prev;
  }
  uint64_t lo = addr, hi = end;
  while (it != ranges_.end() && it->first <= hi) {
    lo = std::min(lo, it->first);
    hi = std::max(hi, it->second);
    it = ranges_.erase(it);
  }
  ranges_.emplace(lo, hi);
  // Ranges only grow until forget_all, so a cached range stays inside a
  // noted one even after merges: no entry goes stale here.
  cache_[next_cache_] = Cached{lo, hi};
  next_cache_ ^= 1;
}

void MemoryTracker::forget_all(TraceSink& sink, uint64_t pid) {
  for (const auto& [lo, hi] : ranges_) sink.mem_unknown(pid, lo, hi - lo);
  ranges_.clear();
  cache_[0] = cache_[1] = Cached{};
}

}  // namespace ttd::fmt::umtrace
