#include "engine/keyframe_page_lists.h"

#include <algorithm>

namespace ttd {

namespace {
const std::vector<KeyframePage> kNoPages;
const std::vector<KeyframeSegment> kNoSegments;
}

const std::vector<KeyframeSegment>& KeyframePageLists::segments_of(uint64_t pid) const {
  auto it = lists_.find(pid);
  return it == lists_.end() ? kNoSegments : it->second.segments;
}

void KeyframePageLists::update_segments(ProcessList& list, const std::vector<uint64_t>& keys) {
  merged_segments_.clear();
  auto old = list.segments.begin();
  auto page = list.pages.begin();
  for (uint64_t key : keys) {
    for (; old != list.segments.end() && old->key < key; ++old) merged_segments_.push_back(*old);
    if (old != list.segments.end() && old->key == key) ++old;
    const uint64_t first = key << kSegmentShift;
    page = std::lower_bound(page, list.pages.end(), first,
                            [](const KeyframePage& p, uint64_t no) { return p.no < no; });
    auto end = page;
    while (end != list.pages.end() && (end->no >> kSegmentShift) == key) ++end;
    if (end == page) continue;  // the segment is empty now
    segment_buf_.clear();
    encode_segment(&*page, size_t(end - page), key, segment_buf_);
    merged_segments_.push_back(KeyframeSegment{key, store_segment_(segment_buf_.data(), segment_buf_.size())});
    page = end;
  }
  for (; old != list.segments.end(); ++old) merged_segments_.push_back(*old);
  list.segments.swap(merged_segments_);
}

const std::vector<KeyframePage>& KeyframePageLists::pages_of(uint64_t pid) const {
  auto it = lists_.find(pid);
  return it == lists_.end() ? kNoPages : it->second.pages;
}

void KeyframePageLists::update(MachineState& live) {
  for (auto it = lists_.begin(); it != lists_.end();)
    it = live.processes().count(it->first) ? std::next(it) : lists_.erase(it);
  for (auto& [pid, p] : live.processes()) {
    auto [it, fresh] = lists_.try_emplace(pid);
    PagedMemory& mem = p.memory;
    if (fresh || !mem.change_log_on() || mem.change_log_overflowed())
      rebuild(mem, it->second);
    else
      apply_changes(mem, it->second);
    mem.start_change_log();
  }
}

void KeyframePageLists::rebuild(const PagedMemory& mem, ProcessList& list) {
  list.pages.clear();
  for (const auto& [no, page] : mem.pages()) list.pages.push_back(KeyframePage{no, 0});
  std::sort(list.pages.begin(), list.pages.end(), [](const KeyframePage& a, const KeyframePage& b) { return a.no < b.no; });
  list.holding.clear();
  keys_.clear();
  for (auto& pg : list.pages) {
    const auto& page = mem.pages().at(pg.no);
    pg.id = store_(page);
    list.holding.push_back(page);
    if (keys_.empty() || keys_.back() != pg.no >> kSegmentShift) keys_.push_back(pg.no >> kSegmentShift);
  }
  list.segments.clear();
  update_segments(list, keys_);
}

void KeyframePageLists::apply_changes(const PagedMemory& mem, ProcessList& list) {
  changed_.assign(mem.changed_pages().begin(), mem.changed_pages().end());
  if (changed_.empty()) return;
  std::sort(changed_.begin(), changed_.end());
  changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
  // Merge the old list with the changed page numbers, both sorted.
  merged_.clear();
  merged_holding_.clear();
  size_t i = 0;
  for (uint64_t no : changed_) {
    for (; i < list.pages.size() && list.pages[i].no < no; ++i) {
      merged_.push_back(list.pages[i]);
      merged_holding_.push_back(std::move(list.holding[i]));
    }
    bool had = i < list.pages.size() && list.pages[i].no == no;
    auto live = mem.pages().find(no);
    if (live != mem.pages().end()) {
      // Same page object as last time (replaced and put back): same id.
      uint64_t id = had && list.holding[i] == live->second ? list.pages[i].id : store_(live->second);
      merged_.push_back(KeyframePage{no, id});
      merged_holding_.push_back(live->second);
    }
    if (had) ++i;
  }
  for (; i < list.pages.size(); ++i) {
    merged_.push_back(list.pages[i]);
    merged_holding_.push_back(std::move(list.holding[i]));
  }
  list.pages.swap(merged_);
  list.holding.swap(merged_holding_);
  keys_.clear();
  for (uint64_t no : changed_)
    if (keys_.empty() || keys_.back() != no >> kSegmentShift) keys_.push_back(no >> kSegmentShift);
  update_segments(list, keys_);
}

}  // namespace ttd
