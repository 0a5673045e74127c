// The index builder's page store (index version 10): page versions
// deduplicated by content (DedupStore), each new one stored as a delta
// against the previous version of its page number, or against the zero
// page for a page number seen for the first time, when that is shorter
// than the page and keeps the base's chain within kMaxPageDeltaChain
// deltas; otherwise (index version 11) as a delta against the chain's
// anchor, the whole page the chain started from, when that is kept and
// the delta is short: the chain then starts again at depth 1 without a
// whole copy. Otherwise whole, a new anchor (engine/page_delta_codec.h).
// A program that writes a few bytes into many pages per chunk then costs
// those bytes, not a page each; a page written hundreds of times costs a
// whole copy only when its changes add up to half a page.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
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
      const uint64_t id = depth_.size();
      uint8_t depth = 0;
      uint64_t anchor = id, ticket = 0;
      const uint8_t base_depth = previous ? depth_[previous_id] : 0;
      const uint64_t base_anchor = previous ? anchor_[previous_id] : kZeroAnchor;
      delta_.clear();
      if (base_depth < max_chain_ &&
          encode_page_delta(*page, previous, previous ? previous_id + 1 : 0, delta_)) {
        depth = uint8_t(base_depth + 1);
        anchor = base_anchor;
        ticket = put_delta(delta_.data(), delta_.size());
      } else if (anchored_delta(*page, base_anchor)) {
        depth = uint8_t((base_anchor == kZeroAnchor ? 0 : depth_[base_anchor]) + 1);
        anchor = base_anchor;
        ticket = put_delta(delta_.data(), delta_.size());
      } else {
        ticket = put_whole(page);
        keep_anchor(id, page);
      }
      depth_.push_back(depth);
      anchor_.push_back(anchor);
      return ticket;
    });
  }
  const std::vector<uint64_t>& tickets() const { return dedup_.tickets(); }  // by id

  // Whole pages kept as anchors at most (their memory: ~4.6 KB each).
  static constexpr size_t kMaxAnchors = 16384;
  // An anchored delta is used when shorter than this; longer, the page is
  // stored whole and becomes its chain's new anchor.
  static constexpr size_t kMaxAnchoredDelta = sizeof(Page) / 2;

 private:
  static constexpr uint64_t kZeroAnchor = ~0ull;  // the chain started from the zero page
  // A delta (in delta_) against the chain's anchor, when that page is
  // still kept and the delta is short enough.
  bool anchored_delta(const Page& page, uint64_t anchor) {
    const Page* base = nullptr;
    if (anchor != kZeroAnchor) {
      auto it = anchors_.find(anchor);
      if (it == anchors_.end()) return false;
      base = it->second.get();
    }
    delta_.clear();
    return encode_page_delta(page, base, base ? anchor + 1 : 0, delta_, kMaxAnchoredDelta);
  }
  void keep_anchor(uint64_t id, const std::shared_ptr<Page>& page) {
    if (anchor_order_.size() == kMaxAnchors) {
      anchors_.erase(anchor_order_.front());
      anchor_order_.pop_front();
    }
    anchors_.emplace(id, page);
    anchor_order_.push_back(id);
  }

  uint32_t max_chain_;
  DedupStore dedup_;
  std::vector<uint8_t> depth_;    // deltas to apply to restore each id
  std::vector<uint64_t> anchor_;  // each id's anchor: the whole page (or kZeroAnchor) its chain started from
  // Anchors kept to delta against, oldest first out. The pages are shared
  // copy-on-write with the live state, which copies before writing.
  std::unordered_map<uint64_t, std::shared_ptr<const Page>> anchors_;
  std::deque<uint64_t> anchor_order_;
  ByteWriter delta_;
};

}  // namespace ttd
