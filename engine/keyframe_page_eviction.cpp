// KeyframePageLists' page budget: the clock that evicts cold pages from
// the live memory and the maps into the spill file, and the read-back
// (engine/keyframe_page_lists.h).
#include <algorithm>

#include "engine/keyframe_page_lists.h"
#include "state/page_pool.h"

namespace ttd {

// The live memory's page source for its evicted pages: group ids are the
// group keys (PagedMemory::evict), which are also the maps' segment keys.
class KeyframePageLists::SpillSource : public PageSource {
 public:
  SpillSource(KeyframePageLists& lists, uint64_t pid) : lists_(lists), pid_(pid) {}
  Result<std::shared_ptr<Page>> page_at(uint64_t group_id, uint64_t rel) override {
    return lists_.read_back(pid_, (group_id << kPageGroupShift) | rel);
  }
  Result<std::vector<uint64_t>> page_numbers(uint64_t group_id) override {
    std::vector<uint64_t> rels;
    auto m = lists_.maps_.find(pid_);
    if (m == lists_.maps_.end()) return rels;
    auto seg = m->second.by_key.find(group_id);
    if (seg == m->second.by_key.end()) return rels;
    for (size_t i = 0; i < seg->second.pages.size(); ++i)
      if (seg->second.holding[i].slot != kNoSlot) rels.push_back(seg->second.pages[i].no & (kPageGroupPages - 1));
    return rels;
  }

 private:
  KeyframePageLists& lists_;
  uint64_t pid_;
};
static_assert(kSegmentShift == kPageGroupShift, "a map segment and a lazy group cover the same pages");

void KeyframePageLists::set_budget(size_t max_pages, std::unique_ptr<PageSpillFile> spill) {
  budget_ = spill ? max_pages : 0;
  spill_ = std::move(spill);
}

KeyframePageLists::EvictionStats KeyframePageLists::eviction_stats() const {
  EvictionStats s = stats_;
  s.spill_slots = spill_ ? spill_->slots() : 0;
  return s;
}

void KeyframePageLists::fail(const Error& e) {
  if (error_.empty()) error_ = e.to_string();
  budget_ = 0;  // nothing more is evicted
}

void KeyframePageLists::release(Held& h) {
  if (h.page) --held_;
  h.page.reset();
  if (h.slot != kNoSlot && spill_) spill_->free(h.slot);
  h.slot = kNoSlot;
}

std::shared_ptr<Page> KeyframePageLists::take_spilled(Held& h) {
  if (h.slot == kNoSlot || !spill_) {
    fail(make_error("page budget", "an evicted page has no spill slot"));
    return nullptr;
  }
  auto page = spill_->take(h.slot);
  h.slot = kNoSlot;
  if (!page) {
    fail(page.error());
    return nullptr;
  }
  return std::move(*page);
}

Result<std::shared_ptr<Page>> KeyframePageLists::read_back(uint64_t pid, uint64_t no) {
  Held* h = nullptr;
  if (auto m = maps_.find(pid); m != maps_.end())
    if (auto seg = m->second.by_key.find(no >> kSegmentShift); seg != m->second.by_key.end()) {
      auto& pages = seg->second.pages;
      auto it = std::lower_bound(pages.begin(), pages.end(), no,
                                 [](const KeyframePage& p, uint64_t n) { return p.no < n; });
      if (it != pages.end() && it->no == no) h = &seg->second.holding[size_t(it - pages.begin())];
    }
  if (!h || h->page) {
    Error e = make_error("page budget", "a lazy page of the live state was not evicted");
    fail(e);
    return e;
  }
  std::shared_ptr<Page> page = take_spilled(*h);
  if (!page) return make_error("page budget", error_);
  ++stats_.read_back;
  h->page = page;  // shared again: the next write copies it and logs the change
  h->ref = true;
  ++held_;
  return page;
}

bool KeyframePageLists::evict(Held& h, uint64_t no, PagedMemory& mem) {
  auto slot = spill_->write(*h.page);
  if (!slot) {
    fail(slot.error());
    return false;
  }
  if (!mem.evict(no, h.page.get())) {
    spill_->free(*slot);
    return false;
  }
  h.page.reset();
  h.slot = *slot;
  --held_;
  ++stats_.evicted;
  return true;
}

void KeyframePageLists::evict_cold(MachineState& live) {
  // What the process holds in pages: the pool's count includes the
  // anchors and the pages queued for the blob writer (no pool under
  // AddressSanitizer: the maps' own count).
  const size_t held = std::max(page_pool_stats().live_blocks, held_);
  if (held <= budget_) return;
  // Down to 7/8 of the budget, so the next keyframes need not evict.
  size_t need = held - (budget_ - budget_ / 8);
  // Pages are visited in (pid, no) order from the hand; each at most
  // twice (a referenced one gets a second chance), so a keyframe whose
  // pages cannot leave (shared with anchors or queued) stops.
  std::vector<uint64_t> pids;
  for (const auto& [pid, map] : maps_) pids.push_back(pid);
  std::sort(pids.begin(), pids.end());
  size_t budget_visits = 2 * held_ + 2;
  for (int round = 0; round < 2 && need && budget_ && budget_visits; ++round) {
    auto start = std::lower_bound(pids.begin(), pids.end(), hand_pid_);
    for (size_t n = 0; n < pids.size() && need && budget_ && budget_visits; ++n) {
      auto pi = start + ptrdiff_t(n);
      if (pi >= pids.end()) pi -= ptrdiff_t(pids.size());
      const uint64_t pid = *pi;
      ProcessMap& map = maps_[pid];
      PagedMemory& mem = live.process(pid).memory;
      if (!map.source) map.source = std::make_shared<SpillSource>(*this, pid);
      mem.set_page_source(map.source);
      const bool at_hand = pid == hand_pid_;
      for (auto it = at_hand ? map.by_key.lower_bound(hand_key_) : map.by_key.begin();
           it != map.by_key.end() && need && budget_ && budget_visits; ++it) {
        hand_pid_ = pid;
        hand_key_ = it->first;
        Segment& seg = it->second;
        for (size_t i = 0; i < seg.holding.size() && need && budget_visits; ++i, --budget_visits) {
          Held& h = seg.holding[i];
          if (!h.page) continue;
          if (h.ref) {
            h.ref = false;
            continue;
          }
          // Shared elsewhere (an anchor, a queued blob, the zero page):
          // evicting it frees nothing.
          if (h.page.use_count() != 2) continue;
          if (evict(h, seg.pages[i].no, mem)) --need;
          if (!budget_) break;
        }
      }
      if (need && budget_visits) {  // the process is done: the hand moves to the next one
        hand_pid_ = pi + 1 < pids.end() ? *(pi + 1) : pids.front();
        hand_key_ = 0;
      }
    }
  }
}

}  // namespace ttd
