// The index builder's page store (index version 10): page versions
// deduplicated by content (DedupStore), each new one stored as a delta
// against the previous version of its page number, or against the zero
// page for a page number seen for the first time, when that is shorter
// than the page and keeps the base's chain within kMaxPageDeltaChain
// deltas; otherwise whole (engine/page_delta_codec.h). A program that
// writes a few bytes into many pages per chunk then costs those bytes,
// not a page each.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/dedup_store.h"
#include "engine/page_delta_codec.h"

namespace ttd {

class PageVersionStore {
 public:
  // Deltas are chained up to max_chain deep (0: every page whole).
  explicit PageVersionStore(uint32_t max_chain = kMaxPageDeltaChain) : max_chain_(max_chain) {}

  // The id of page's content. New content is put with put_whole(page) or
  // put_delta(const uint8_t*, size_t), each returning its blob ticket.
  // `previous` / `previous_id`: the version this one replaces (nullptr: none).
  template <class PutWhole, class PutDelta>
  uint64_t id_of(const std::shared_ptr<Page>& page, const Page* previous, uint64_t previous_id, PutWhole put_whole,
                 PutDelta put_delta) {
    return dedup_.id_of(page.get(), sizeof(Page), [&] {
      uint8_t depth = 0;
      uint64_t ticket = 0;
      const uint8_t base_depth = previous ? depth_[previous_id] : 0;
      delta_.clear();
      if (base_depth < max_chain_ &&
          encode_page_delta(*page, previous, previous ? previous_id + 1 : 0, delta_)) {
        depth = uint8_t(base_depth + 1);
        ticket = put_delta(delta_.data(), delta_.size());
      } else {
        ticket = put_whole(page);
      }
      depth_.push_back(depth);
      return ticket;
    });
  }
  const std::vector<uint64_t>& tickets() const { return dedup_.tickets(); }  // by id

 private:
  uint32_t max_chain_;
  DedupStore dedup_;
  std::vector<uint8_t> depth_;  // deltas to apply to restore each id
  ByteWriter delta_;
};

}  // namespace ttd
