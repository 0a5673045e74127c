// Memory the source said "became unknown" somewhere (an effect UCIR cannot
// say: the output keeps the earlier value there). `ttd convert` collects
// the ranges while writing and its read-back check accepts, only inside
// them, a byte the output knows and the source does not. Merged intervals;
// beyond kMaxRanges separate ones the check stops accepting (it fails
// rather than accept too much).
#pragma once
#include <cstdint>
#include <iterator>
#include <map>

namespace ttd::cli {

class UnknownRanges {
 public:
  static constexpr size_t kMaxRanges = 1u << 16;

  void add(uint64_t addr, uint64_t size) {
    if (size == 0 || overflowed_) return;
    uint64_t lo = addr, hi = addr + size < addr ? UINT64_MAX : addr + size;
    auto it = ranges_.upper_bound(lo);
    if (it != ranges_.begin() && std::prev(it)->second >= lo) --it;
    while (it != ranges_.end() && it->first <= hi) {
      lo = std::min(lo, it->first), hi = std::max(hi, it->second);
      it = ranges_.erase(it);
    }
    ranges_.emplace(lo, hi);
    if (ranges_.size() > kMaxRanges) overflowed_ = true, ranges_.clear();
  }
  bool contains(uint64_t addr) const {
    auto it = ranges_.upper_bound(addr);
    return it != ranges_.begin() && std::prev(it)->second > addr;
  }
  bool overflowed() const { return overflowed_; }

 private:
  std::map<uint64_t, uint64_t> ranges_;  // start -> end (exclusive)
  bool overflowed_ = false;
};

}  // namespace ttd::cli
