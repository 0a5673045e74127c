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
bool any_line_in(const std::vector<uint64_t>& lines, uint64_t addr, uint64_t len) {
  if (len == 0) return false;
  uint64_t first = addr >> ChunkSummary::kLineShift;
  uint64_t last = (addr + len - 1) >> ChunkSummary::kLineShift;
  auto it = std::lower_bound(lines.begin(), lines.end(), first);
  return it != lines.end() && *it <= last;
}
bool touches(const std::vector<uint64_t>& pages, const std::vector<uint64_t>& coarse,
             const std::vector<uint64_t>& lines, uint64_t addr, uint64_t len) {
  if (!any_page_in(pages, addr, len)) return false;
  return any_page_in(coarse, addr, len) || any_line_in(lines, addr, len);
}

bool ChunkSummary::reads(uint64_t addr, uint64_t len) const {
  return touches(pages_read, pages_read_coarse, lines_read, addr, len);
}
bool ChunkSummary::writes(uint64_t addr, uint64_t len) const {
  return touches(pages_written, pages_written_coarse, lines_written, addr, len);
}

}  // namespace ttd
