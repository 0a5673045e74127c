#include "engine/query/memory_pattern.h"

#include <algorithm>
#include <functional>
#include <vector>

namespace ttd::query {

namespace {

// Accumulates contiguous known bytes and searches them; bounded in size by
// searching and keeping only a tail that could still start a match.
class SegmentSearch {
 public:
  SegmentSearch(std::span<const uint8_t> pat, const std::function<bool(uint64_t)>& fn) : pat_(pat), fn_(fn) {}

  // Appends known bytes at addr; a gap before them ends the segment.
  bool append(uint64_t addr, const uint8_t* p, size_t n) {
    if (!seg_.empty() && start_ + seg_.size() != addr)
      if (!flush(true)) return false;
    if (seg_.empty()) start_ = addr;
    seg_.insert(seg_.end(), p, p + n);
    if (seg_.size() >= (1u << 20)) return flush(false);
    return true;
  }
  bool gap() { return flush(true); }

 private:
  bool flush(bool all) {
    if (seg_.size() >= pat_.size()) {
      std::boyer_moore_horspool_searcher searcher(pat_.begin(), pat_.end());
      auto it = seg_.begin();
      for (;;) {
        auto hit = std::search(it, seg_.end(), searcher);
        if (hit == seg_.end()) break;
        if (!fn_(start_ + uint64_t(hit - seg_.begin()))) return false;
        it = hit + 1;
      }
    }
    if (all || seg_.size() < pat_.size()) {
      if (all) seg_.clear();
      return true;
    }
    // Keep the bytes that could begin a match not yet complete.
    size_t keep = pat_.size() - 1;
    start_ += seg_.size() - keep;
    seg_.erase(seg_.begin(), seg_.end() - ptrdiff_t(keep));
    return true;
  }

  std::span<const uint8_t> pat_;
  const std::function<bool(uint64_t)>& fn_;
  uint64_t start_ = 0;
  std::vector<uint8_t> seg_;
};

bool byte_valid(const Page& p, size_t i) { return (p.valid[i / 64] >> (i % 64)) & 1; }

}  // namespace

bool find_pattern(const PagedMemory& m, std::span<const uint8_t> pattern, uint64_t lo, uint64_t last,
                  const std::function<bool(uint64_t addr)>& fn) {
  if (pattern.empty() || last < lo || last - lo < pattern.size() - 1) return true;
  uint64_t first_no = lo >> kPageShift, last_no = last >> kPageShift;
  // Few pages in the range: look them up; many: walk the pages there are.
  std::vector<uint64_t> nos;
  if (last_no - first_no < m.page_count()) {
    for (uint64_t no = first_no;; ++no) {
      if (m.pages().count(no)) nos.push_back(no);
      if (no == last_no) break;
    }
  } else {
    for (const auto& [no, page] : m.pages())
      if (no >= first_no && no <= last_no) nos.push_back(no);
    std::sort(nos.begin(), nos.end());
  }
  SegmentSearch seg(pattern, fn);
  for (uint64_t no : nos) {
    const Page& p = *m.pages().at(no);
    uint64_t base = no << kPageShift;
    size_t from = no == first_no ? size_t(lo - base) : 0;
    size_t to = no == last_no ? size_t(last - base) + 1 : kPageSize;
    if (p.all_valid()) {
      if (!seg.append(base + from, p.data + from, to - from)) return false;
      continue;
    }
    for (size_t i = from; i < to;) {
      if (!byte_valid(p, i)) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < to && byte_valid(p, j)) ++j;
      if (!seg.append(base + i, p.data + i, j - i)) return false;
      i = j;
    }
  }
  return seg.gap();
}

}  // namespace ttd::query
