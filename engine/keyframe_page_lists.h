// The index builder's page lists for keyframes, kept up to date from each
// live process's PagedMemory change log: at a keyframe only the pages that
// were created, copied on write or dropped since the last one are hashed
// and stored, instead of every page of every process (a trace that touched
// 100 000 pages made every keyframe cost 100 000 hash-map lookups), and
// only the page-map segments holding such pages are encoded again.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/keyframe_codec.h"

namespace ttd {

class KeyframePageLists {
 public:
  // Stores a page's content in the page store (deduplicated) and returns its id.
  using StorePage = std::function<uint64_t(const std::shared_ptr<Page>& page)>;
  // Stores an encoded segment (deduplicated) and returns its id.
  using StoreSegment = std::function<uint64_t(const uint8_t* data, size_t size)>;
  KeyframePageLists(StorePage store, StoreSegment store_segment)
      : store_(std::move(store)), store_segment_(std::move(store_segment)) {}

  // Brings every live process's list up to date and restarts its change
  // log; lists of processes that no longer exist are dropped.
  void update(MachineState& live);
  // The list of a process (empty if unknown), valid until the next update.
  const std::vector<KeyframePage>& pages_of(uint64_t pid) const;
  // The segments of a process's list (empty if unknown), sorted by key.
  const std::vector<KeyframeSegment>& segments_of(uint64_t pid) const;

 private:
  struct ProcessList {
    std::vector<KeyframePage> pages;             // sorted by no
    std::vector<std::shared_ptr<Page>> holding;  // parallel: keeps pages shared, so writes copy
    std::vector<KeyframeSegment> segments;       // of `pages`, sorted by key
  };
  void rebuild(const PagedMemory& mem, ProcessList& list);
  void apply_changes(const PagedMemory& mem, ProcessList& list);
  // Encodes again the segments with these keys (sorted, unique).
  void update_segments(ProcessList& list, const std::vector<uint64_t>& keys);

  StorePage store_;
  StoreSegment store_segment_;
  ByteWriter segment_buf_;
  std::vector<uint64_t> keys_;
  std::vector<KeyframeSegment> merged_segments_;
  std::unordered_map<uint64_t, ProcessList> lists_;
  std::vector<uint64_t> changed_;
  std::vector<KeyframePage> merged_;
  std::vector<std::shared_ptr<Page>> merged_holding_;
};

}  // namespace ttd
