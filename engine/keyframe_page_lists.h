// The index builder's page maps for keyframes, kept up to date from each
// live process's PagedMemory change log: at a keyframe only the pages that
// were created, copied on write or dropped since the last one are hashed
// and stored, instead of every page of every process (a trace that touched
// 100 000 pages made every keyframe cost 100 000 hash-map lookups), and
// only the page-map segments holding such pages are encoded again. Pages
// are kept per segment, so a new page costs a segment's worth of work,
// not a pass over the whole map.
//
// Page budget (docs/design.md, "Build page budget"): with set_budget(), a
// keyframe that finds more pages held than the budget evicts cold ones,
// by a clock over the maps' pages (a page stored or read back since the
// hand last passed is skipped once), from both the live memory and these
// maps into a spill file (engine/page_spill_file.h). The live memory keeps
// the page lazy (state/paged_memory.h): its next access reads it back and
// shares it with the map again, as before the eviction, so copy on write
// still logs its next change and what is stored does not depend on the
// budget. A changed page whose old version was evicted is read back as the
// delta base.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/keyframe_codec.h"
#include "engine/page_spill_file.h"

namespace ttd {

class KeyframePageLists {
 public:
  // Stores a page's content in the page store (deduplicated) and returns
  // its id; `previous` (nullptr: none) is the version of the same page
  // number it replaces, stored as `previous_id` (a delta base).
  using StorePage = std::function<uint64_t(const std::shared_ptr<Page>& page, const Page* previous, uint64_t previous_id)>;
  // Stores segment `key`'s pages (deduplicated) and returns its id;
  // `previous` is the version stored before for the key as `previous_id`
  // (~0 and empty: none), a delta base.
  using StoreSegment = std::function<uint64_t(const std::vector<KeyframePage>& pages, uint64_t key,
                                              const std::vector<KeyframePage>& previous, uint64_t previous_id)>;
  KeyframePageLists(StorePage store, StoreSegment store_segment)
      : store_(std::move(store)), store_segment_(std::move(store_segment)) {}

  // Brings every live process's map up to date and restarts its change
  // log; maps of processes that no longer exist are dropped.
  void update(MachineState& live);
  // The segments of a process's map (empty if unknown), sorted by key,
  // valid until the next update.
  const std::vector<KeyframeSegment>& segments_of(uint64_t pid) const;

  // Evicts cold pages at each update() while the pages held (the page
  // pool's, engine and live state together) exceed max_pages; 0: never.
  void set_budget(size_t max_pages, std::unique_ptr<PageSpillFile> spill);
  // The first spill failure (writing or reading back), naming the file;
  // empty if none. After one, nothing more is evicted and the index
  // being built is wrong: the build must fail.
  const std::string& error() const { return error_; }
  struct EvictionStats {
    uint64_t evicted = 0, read_back = 0;
    size_t spill_slots = 0;  // the spill file's size in pages
  };
  EvictionStats eviction_stats() const;

 private:
  static constexpr uint32_t kNoSlot = ~0u;
  struct Held {
    std::shared_ptr<Page> page;  // keeps the page shared, so writes copy; null: evicted
    uint32_t slot = kNoSlot;     // the spill slot while evicted
    bool ref = true;             // stored or read back since the clock hand passed
  };
  struct Segment {
    std::vector<KeyframePage> pages;  // sorted by no
    std::vector<Held> holding;        // parallel
    std::vector<KeyframePage> stored;  // pages as last stored (a delta base), as `segments` lists them
  };
  class SpillSource;
  struct ProcessMap {
    std::map<uint64_t, Segment> by_key;
    std::vector<KeyframeSegment> segments;  // (key, stored id) of by_key
    std::shared_ptr<SpillSource> source;    // the live memory's, once a page was evicted
  };
  void rebuild(const PagedMemory& mem, ProcessMap& map);
  void apply_changes(const PagedMemory& mem, ProcessMap& map);
  // Brings the pages numbered in changed_ (sorted, unique) up to date.
  void apply_sorted(const PagedMemory& mem, ProcessMap& map);
  // Sets page `no` of the segment to the live page (or drops it).
  void set_page(Segment& seg, uint64_t no, const PagedMemory& mem);
  // Stores the segments with these keys again and refreshes map.segments.
  void store_segments(ProcessMap& map, const std::vector<uint64_t>& keys);

  // keyframe_page_eviction.cpp
  void evict_cold(MachineState& live);
  // Evicts held page `no` of the live memory; false if it is not evicted.
  bool evict(Held& h, uint64_t no, PagedMemory& mem);
  // The live memory's access to an evicted page: its content, shared with
  // the map again.
  Result<std::shared_ptr<Page>> read_back(uint64_t pid, uint64_t no);
  // The version of an evicted page that a change replaced, from its slot.
  std::shared_ptr<Page> take_spilled(Held& h);
  void release(Held& h);  // the entry goes: frees its slot
  void fail(const Error& e);

  size_t budget_ = 0;
  std::unique_ptr<PageSpillFile> spill_;
  std::string error_;
  size_t held_ = 0;  // entries with a page
  uint64_t hand_pid_ = 0, hand_key_ = 0;
  EvictionStats stats_;

  StorePage store_;
  StoreSegment store_segment_;
  std::unordered_map<uint64_t, ProcessMap> maps_;
  std::vector<uint64_t> changed_, keys_;
  std::vector<KeyframeSegment> merged_;
};

}  // namespace ttd
