#include "engine/query/memory_pattern.h"

#include <algorithm>
#include <cstring>

namespace ttd::query {

namespace {

// How many pages are scanned between two polls of the cancel check (~256
// KiB: well under a millisecond).
constexpr size_t kPagesPerPoll = 64;

bool byte_valid(const Page& p, size_t i) { return (p.valid[i / 64] >> (i % 64)) & 1; }

// The automaton's position across runs of known bytes.
struct MatchState {
  uint32_t matched = 0;  // pattern bytes matched so far
  uint64_t next = 0;     // the address the next byte must have to continue
};

}  // namespace

PatternFinder::PatternFinder(std::span<const uint8_t> pattern) : pat_(pattern), fail_(pattern.size(), 0) {
  for (size_t i = 1, k = 0; i < pat_.size(); ++i) {
    while (k > 0 && pat_[i] != pat_[k]) k = fail_[k - 1];
    if (pat_[i] == pat_[k]) ++k;
    fail_[i] = uint32_t(k);
  }
}

bool PatternFinder::find(const PagedMemory& m, uint64_t lo, uint64_t last,
                         const std::function<bool(uint64_t addr)>& fn, const std::function<bool()>& cancel) const {
  const size_t n = pat_.size();
  if (n == 0 || last < lo || last - lo < n - 1) return true;
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
  MatchState st;
  // Feeds the known bytes p[0..len) at addr; a gap before them restarts.
  auto feed = [&](uint64_t addr, const uint8_t* p, size_t len) {
    size_t k = st.next == addr ? st.matched : 0;
    for (size_t i = 0; i < len;) {
      if (k == 0) {
        const void* q = std::memchr(p + i, pat_[0], len - i);
        if (!q) break;
        i = size_t(static_cast<const uint8_t*>(q) - p);
      }
      while (k > 0 && p[i] != pat_[k]) k = fail_[k - 1];
      if (p[i] == pat_[k]) ++k;
      ++i;
      if (k == n) {
        if (!fn(addr + i - n)) return false;
        k = fail_[n - 1];
      }
    }
    st.matched = uint32_t(k);
    st.next = addr + len;
    return true;
  };
  size_t scanned = 0;
  for (uint64_t no : nos) {
    if (cancel && ++scanned % kPagesPerPoll == 0 && cancel()) return false;
    const Page& p = *m.pages().at(no);
    uint64_t base = no << kPageShift;
    size_t from = no == first_no ? size_t(lo - base) : 0;
    size_t to = no == last_no ? size_t(last - base) + 1 : kPageSize;
    if (p.all_valid()) {
      if (!feed(base + from, p.data + from, to - from)) return false;
      continue;
    }
    for (size_t i = from; i < to;) {
      if (!byte_valid(p, i)) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < to && byte_valid(p, j)) ++j;
      if (!feed(base + i, p.data + i, j - i)) return false;
      i = j;
    }
  }
  return true;
}

bool find_pattern(const PagedMemory& m, std::span<const uint8_t> pattern, uint64_t lo, uint64_t last,
                  const std::function<bool(uint64_t addr)>& fn) {
  if (pattern.empty()) return true;
  return PatternFinder(pattern).find(m, lo, last, fn);
}

}  // namespace ttd::query
