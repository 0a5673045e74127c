// The index builder's page maps for keyframes, kept up to date from each
// live process's PagedMemory change log: at a keyframe only the pages that
// were created, copied on write or dropped since the last one are hashed
// and stored, instead of every page of every process (a trace that touched
// 100 000 pages made every keyframe cost 100 000 hash-map lookups), and
// only the page-map segments holding such pages are encoded again. Pages
// are kept per segment, so a new page costs a segment's worth of work,
// not a pass over the whole map.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/keyframe_codec.h"

namespace ttd {

class KeyframePageLists {
 public:
  // Stores a page's content in the page store (deduplicated) and returns
  // its id; `previous` (nullptr: none) is the version of the same page
  // number it replaces, stored as `previous_id` (a delta base).
  using StorePage = std::function<uint64_t(const std::shared_ptr<Page>& page, const Page* previous, uint64_t previous_id)>;
  // Stores an encoded segment (deduplicated) and returns its id.
  using StoreSegment = std::function<uint64_t(const uint8_t* data, size_t size)>;
  KeyframePageLists(StorePage store, StoreSegment store_segment)
      : store_(std::move(store)), store_segment_(std::move(store_segment)) {}

  // Brings every live process's map up to date and restarts its change
  // log; maps of processes that no longer exist are dropped.
  void update(MachineState& live);
  // The segments of a process's map (empty if unknown), sorted by key,
  // valid until the next update.
  const std::vector<KeyframeSegment>& segments_of(uint64_t pid) const;

 private:
  struct Segment {
    std::vector<KeyframePage> pages;             // sorted by no
    std::vector<std::shared_ptr<Page>> holding;  // parallel: keeps pages shared, so writes copy
  };
  struct ProcessMap {
    std::map<uint64_t, Segment> by_key;
    std::vector<KeyframeSegment> segments;  // (key, stored id) of by_key
  };
  void rebuild(const PagedMemory& mem, ProcessMap& map);
  void apply_changes(const PagedMemory& mem, ProcessMap& map);
  // Brings the pages numbered in changed_ (sorted, unique) up to date.
  void apply_sorted(const PagedMemory& mem, ProcessMap& map);
  // Sets page `no` of the segment to the live page (or drops it).
  void set_page(Segment& seg, uint64_t no, const PagedMemory& mem);
  // Stores the segments with these keys again and refreshes map.segments.
  void store_segments(ProcessMap& map, const std::vector<uint64_t>& keys);

  StorePage store_;
  StoreSegment store_segment_;
  std::unordered_map<uint64_t, ProcessMap> maps_;
  std::vector<uint64_t> changed_, keys_;
  std::vector<KeyframeSegment> merged_;
  ByteWriter segment_buf_;
};

}  // namespace ttd
