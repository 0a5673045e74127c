#include <xxhash.h>

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
// Whether a listed line has a touched slot in [addr, addr+len). `slots`
// may be empty (then a listed line counts whole).
bool any_slot_in(const std::vector<uint64_t>& lines, const std::vector<uint8_t>& slots, uint64_t addr, uint64_t len) {
  if (len == 0) return false;
  constexpr uint64_t kSlotsPerLine = ChunkSummary::kLineShift - ChunkSummary::kSlotShift;
  const uint64_t first = addr >> ChunkSummary::kSlotShift, last = (addr + len - 1) >> ChunkSummary::kSlotShift;
  auto it = std::lower_bound(lines.begin(), lines.end(), first >> kSlotsPerLine);
  for (; it != lines.end() && *it <= last >> kSlotsPerLine; ++it) {
    const size_t i = size_t(it - lines.begin());
    if (i >= slots.size()) return true;
    // The query's slots inside this line.
    const uint64_t line_first = *it << kSlotsPerLine;
    const uint64_t lo = std::max(first, line_first) - line_first, hi = std::min(last, line_first + 7) - line_first;
    const unsigned want = ((2u << hi) - 1) & ~((1u << lo) - 1);
    if (slots[i] & want) return true;
  }
  return false;
}
bool touches(const std::vector<uint64_t>& pages, const std::vector<uint64_t>& coarse,
             const std::vector<uint64_t>& lines, const std::vector<uint8_t>& slots, uint64_t addr, uint64_t len) {
  if (!any_unit_in(pages, addr, len, kPageShift)) return false;
  return any_unit_in(coarse, addr, len, kPageShift) || any_slot_in(lines, slots, addr, len);
}
}  // namespace

uint32_t blob_checksum(const void* stored, size_t size, uint64_t offset) {
  return uint32_t(XXH3_64bits_withSeed(stored, size, offset));
}

bool ChunkSummary::has_pc(uint64_t pc) const { return corrupt || std::binary_search(pcs.begin(), pcs.end(), pc); }
bool ChunkSummary::has_thread(uint32_t t) const {
  return corrupt || std::binary_search(threads.begin(), threads.end(), t);
}
bool ChunkSummary::reads(uint64_t addr, uint64_t len) const {
  if (corrupt) return true;
  return touches(pages_read, pages_read_coarse, lines_read, line_slots_read, addr, len);
}
bool ChunkSummary::writes(uint64_t addr, uint64_t len) const {
  if (corrupt) return true;
  return touches(pages_written, pages_written_coarse, lines_written, line_slots_written, addr, len);
}

}  // namespace ttd
