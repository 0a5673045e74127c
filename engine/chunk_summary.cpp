#include <algorithm>

#include "engine/index_layout.h"
#include "state/paged_memory.h"

namespace ttd {

namespace {
bool any_page_in(const std::vector<uint64_t>& pages, uint64_t addr, uint64_t len) {
  if (len == 0) return false;
  uint64_t first = addr >> kPageShift;
  uint64_t last = (addr + len - 1) >> kPageShift;
  auto it = std::lower_bound(pages.begin(), pages.end(), first);
  return it != pages.end() && *it <= last;
}
}  // namespace

bool ChunkSummary::has_pc(uint64_t pc) const { return std::binary_search(pcs.begin(), pcs.end(), pc); }
bool ChunkSummary::has_thread(uint32_t t) const { return std::binary_search(threads.begin(), threads.end(), t); }
bool ChunkSummary::reads(uint64_t addr, uint64_t len) const { return any_page_in(pages_read, addr, len); }
bool ChunkSummary::writes(uint64_t addr, uint64_t len) const { return any_page_in(pages_written, addr, len); }

}  // namespace ttd
