#include <algorithm>

#include "engine/index_layout.h"
#include "state/paged_memory.h"

namespace ttd {

namespace {
// Whether a sorted list of 2^shift-byte unit numbers holds one that
// [addr, addr+len) touches.
bool any_unit_in(const std::vector<uint64_t>& units, uint64_t addr, uint64_t len, uint64_t shift) {
  if (len == 0) return false;
  uint64_t first = addr >> shift;
  uint64_t last = (addr + len - 1) >> shift;
  auto it = std::lower_bound(units.begin(), units.end(), first);
  return it != units.end() && *it <= last;
}
bool touches(const std::vector<uint64_t>& pages, const std::vector<uint64_t>& coarse,
             const std::vector<uint64_t>& lines, uint64_t addr, uint64_t len) {
  if (!any_unit_in(pages, addr, len, kPageShift)) return false;
  return any_unit_in(coarse, addr, len, kPageShift) || any_unit_in(lines, addr, len, ChunkSummary::kLineShift);
}
}  // namespace

bool ChunkSummary::has_pc(uint64_t pc) const { return std::binary_search(pcs.begin(), pcs.end(), pc); }
bool ChunkSummary::has_thread(uint32_t t) const { return std::binary_search(threads.begin(), threads.end(), t); }
bool ChunkSummary::reads(uint64_t addr, uint64_t len) const {
  return touches(pages_read, pages_read_coarse, lines_read, addr, len);
}
bool ChunkSummary::writes(uint64_t addr, uint64_t len) const {
  return touches(pages_written, pages_written_coarse, lines_written, addr, len);
}

}  // namespace ttd
