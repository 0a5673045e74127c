// The index builder's per-chunk summary lists (pcs, 64-byte lines, pages,
// threads): values arrive once per step, mostly repeats.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "engine/sort_unique.h"

namespace ttd {

// Collects a sorted unique list, skipping most repeats cheaply with a small
// direct-mapped cache (loops execute the same pcs and pages again and again).
class UniqueCollector {
 public:
  UniqueCollector() { seen_.fill(kEmpty); }
  [[gnu::always_inline]] void add(uint64_t v) {
    uint64_t& slot = seen_[hash(v)];
    if (slot == v) return;
    slot = v;
    values_.push_back(v);
  }
  // The sorted unique values; the collector keeps its capacity (handing
  // the buffer over made every chunk grow a new one from nothing).
  std::vector<uint64_t> take() {
    // Few values: clear just their slots rather than the whole cache.
    if (values_.size() < seen_.size() / 8) {
      for (uint64_t v : values_) seen_[hash(v)] = kEmpty;
    } else {
      seen_.fill(kEmpty);
    }
    sort_unique_u64(values_);
    std::vector<uint64_t> out(values_.begin(), values_.end());
    values_.clear();
    return out;
  }
  // Heap bytes held beyond sizeof(UniqueCollector).
  size_t heap_bytes() const { return values_.capacity() * sizeof(uint64_t); }

 private:
  static constexpr uint64_t kEmpty = ~0ull;
  static size_t hash(uint64_t v) { return (v ^ (v >> 9) ^ (v >> 17)) & 1023; }
  std::array<uint64_t, 1024> seen_;
  std::vector<uint64_t> values_;
};

}  // namespace ttd
