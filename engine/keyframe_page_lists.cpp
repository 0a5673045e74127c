#include "engine/keyframe_page_lists.h"

#include <algorithm>

namespace ttd {

namespace {
const std::vector<KeyframeSegment> kNoSegments;
}

const std::vector<KeyframeSegment>& KeyframePageLists::segments_of(uint64_t pid) const {
  auto it = maps_.find(pid);
  return it == maps_.end() ? kNoSegments : it->second.segments;
}

void KeyframePageLists::update(MachineState& live) {
  for (auto it = maps_.begin(); it != maps_.end();) {
    if (live.processes().count(it->first)) {
      ++it;
      continue;
    }
    for (auto& [key, seg] : it->second.by_key)
      for (Held& h : seg.holding) release(h);
    it = maps_.erase(it);
  }
  for (auto& [pid, p] : live.processes()) {
    auto [it, fresh] = maps_.try_emplace(pid);
    PagedMemory& mem = p.memory;
    if (fresh || !mem.change_log_on() || mem.change_log_overflowed())
      rebuild(mem, it->second);
    else
      apply_changes(mem, it->second);
    mem.start_change_log();
  }
  if (budget_) evict_cold(live);
}

void KeyframePageLists::rebuild(const PagedMemory& mem, ProcessMap& map) {
  // Every live page and every page the map has: the map's pages stay the
  // previous versions (delta bases) of the live ones, and unchanged pages
  // keep their ids.
  changed_.clear();
  // Evicted pages are not read: those untouched since are unchanged.
  mem.for_each_held([this](uint64_t no) { changed_.push_back(no); });
  for (const auto& [key, seg] : map.by_key)
    for (const KeyframePage& p : seg.pages) changed_.push_back(p.no);
  std::sort(changed_.begin(), changed_.end());
  changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
  apply_sorted(mem, map);
}

void KeyframePageLists::apply_changes(const PagedMemory& mem, ProcessMap& map) {
  changed_.assign(mem.changed_pages().begin(), mem.changed_pages().end());
  if (changed_.empty()) return;
  std::sort(changed_.begin(), changed_.end());
  changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
  apply_sorted(mem, map);
}

void KeyframePageLists::apply_sorted(const PagedMemory& mem, ProcessMap& map) {
  keys_.clear();
  Segment* seg = nullptr;
  for (uint64_t no : changed_) {
    const uint64_t key = no >> kSegmentShift;
    if (keys_.empty() || keys_.back() != key) {
      keys_.push_back(key);
      seg = &map.by_key[key];
    }
    set_page(*seg, no, mem);
  }
  store_segments(map, keys_);
}

void KeyframePageLists::set_page(Segment& seg, uint64_t no, const PagedMemory& mem) {
  auto it = std::lower_bound(seg.pages.begin(), seg.pages.end(), no,
                             [](const KeyframePage& p, uint64_t n) { return p.no < n; });
  const size_t at = size_t(it - seg.pages.begin());
  const bool had = it != seg.pages.end() && it->no == no;
  if (had && !seg.holding[at].page && mem.untouched_lazy(no)) return;  // evicted, unchanged since
  // Reads an evicted page back if it was changed unread (read_back shares
  // its old version with the map again).
  const std::shared_ptr<Page>* live = mem.find_shared(no);
  if (!live) {
    if (had) {
      release(seg.holding[at]);
      seg.pages.erase(it);
      seg.holding.erase(seg.holding.begin() + long(at));
    }
    return;
  }
  if (had) {
    Held& h = seg.holding[at];
    // The same page object put back keeps its id.
    if (h.page != *live) {
      // Replaced whole while evicted: the old version is in its slot.
      std::shared_ptr<Page> old = h.page ? h.page : take_spilled(h);
      it->id = store_(*live, old.get(), it->id);
      if (!h.page) ++held_;
      h.page = *live;
      h.ref = true;
    }
    return;
  }
  seg.pages.insert(it, KeyframePage{no, store_(*live, nullptr, 0)});
  seg.holding.insert(seg.holding.begin() + long(at), Held{*live});
  ++held_;
}

void KeyframePageLists::store_segments(ProcessMap& map, const std::vector<uint64_t>& keys) {
  // Merge the stored list with the (sorted) keys encoded again.
  merged_.clear();
  auto old = map.segments.begin();
  for (uint64_t key : keys) {
    for (; old != map.segments.end() && old->key < key; ++old) merged_.push_back(*old);
    // The id stored for the key before: seg.stored's, the delta base.
    uint64_t previous_id = ~0ull;
    if (old != map.segments.end() && old->key == key) previous_id = (old++)->id;
    auto it = map.by_key.find(key);
    if (it == map.by_key.end()) continue;
    if (it->second.pages.empty()) {
      map.by_key.erase(it);
      continue;
    }
    Segment& seg = it->second;
    merged_.push_back(KeyframeSegment{key, store_segment_(seg.pages, key, seg.stored, previous_id)});
    seg.stored = seg.pages;
  }
  for (; old != map.segments.end(); ++old) merged_.push_back(*old);
  map.segments.swap(merged_);
}

}  // namespace ttd
