// The index builder's page-map segment store (index version 14): segments
// deduplicated by their whole encoding (DedupStore), each new one stored
// as a delta against the previous version of its segment key when that is
// shorter than the whole encoding and keeps the base's chain within
// kMaxSegmentDeltaChain deltas; otherwise whole (engine/segment_codec.h).
#pragma once
#include <cstdint>
#include <vector>

#include "engine/dedup_store.h"
#include "engine/segment_codec.h"

namespace ttd {

class SegmentVersionStore {
 public:
  static constexpr uint64_t kNone = ~0ull;
  // Deltas are chained up to max_chain deep (0: every segment whole).
  explicit SegmentVersionStore(uint32_t max_chain = kMaxSegmentDeltaChain) : max_chain_(max_chain) {}

  // The id of segment `key` holding pages[0, n) (absolute numbers,
  // ascending). `previous` (np pages) is the version stored before for
  // this key as `previous_id` (kNone: none). New content is put with
  // put(const uint8_t*, size_t), which returns its blob ticket.
  template <class Put>
  uint64_t id_of(const KeyframePage* pages, size_t n, uint64_t key, const KeyframePage* previous, size_t np,
                 uint64_t previous_id, Put put) {
    whole_.clear();
    encode_segment(pages, n, key, whole_);
    return dedup_.id_of(whole_.data(), whole_.size(), [&] {
      const uint64_t id = depth_.size();
      if (previous_id != kNone && depth_[previous_id] < max_chain_) {
        delta_.clear();
        if (encode_segment_delta(previous, np, pages, n, key, id - previous_id, delta_) &&
            delta_.size() < whole_.size()) {
          depth_.push_back(uint8_t(depth_[previous_id] + 1));
          return put(delta_.data(), delta_.size());
        }
      }
      depth_.push_back(0);
      return put(whole_.data(), whole_.size());
    });
  }
  const std::vector<uint64_t>& tickets() const { return dedup_.tickets(); }  // by id

 private:
  uint32_t max_chain_;
  DedupStore dedup_;
  std::vector<uint8_t> depth_;  // by id: deltas on the way to a whole segment
  ByteWriter whole_, delta_;
};

}  // namespace ttd
