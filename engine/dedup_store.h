// The index builder's content deduplication for pages and page-map
// segments.
#pragma once
#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ttd {

// Content-addressed ids (pages, page-map segments): the same content gets
// the same id and is put to the blob writer once. Keyed by the content's
// 128-bit xxh3, in an open-addressing table (the hashes are already
// uniform; a node-based map cost an allocation per new page).
class DedupStore {
 public:
  // `put` stores the content and returns its blob ticket; called for new content only.
  template <class Put>
  uint64_t id_of(const void* data, size_t n, Put put) {
    const XXH128_hash_t h = XXH3_128bits(data, n);
    if (2 * (tickets_.size() + 1) > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = size_t(h.low64) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.id == kEmpty) {
        s = Slot{h.low64, h.high64, tickets_.size()};
        tickets_.push_back(put());
        return s.id;
      }
      if (s.lo == h.low64 && s.hi == h.high64) return s.id;
    }
  }
  const std::vector<uint64_t>& tickets() const { return tickets_; }  // by id

 private:
  struct Slot {
    uint64_t lo, hi, id;
  };
  static constexpr uint64_t kEmpty = ~0ull;
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<size_t>(1024, 2 * old.size()), Slot{0, 0, kEmpty});
    const size_t mask = slots_.size() - 1;
    for (const Slot& o : old) {
      if (o.id == kEmpty) continue;
      size_t i = size_t(o.lo) & mask;
      while (slots_[i].id != kEmpty) i = (i + 1) & mask;
      slots_[i] = o;
    }
  }
  std::vector<Slot> slots_;  // a power of two, at most half full
  std::vector<uint64_t> tickets_;
};

}  // namespace ttd
