#include "engine/chunk_summary_builder.h"

#include <algorithm>

namespace ttd {

namespace {

// Sorted unique slot numbers -> their lines and, per line, the mask of
// its slots.
void lines_of_slots(const std::vector<uint64_t>& slots, std::vector<uint64_t>& lines, std::vector<uint8_t>& masks) {
  constexpr uint64_t kSlotsPerLine = ChunkSummary::kLineShift - ChunkSummary::kSlotShift;
  lines.clear();
  masks.clear();
  for (uint64_t slot : slots) {
    const uint64_t line = slot >> kSlotsPerLine;
    if (lines.empty() || lines.back() != line) {
      lines.push_back(line);
      masks.push_back(0);
    }
    masks.back() |= uint8_t(1u << (slot & ((1u << kSlotsPerLine) - 1)));
  }
}

// Sorted unique pages holding the sorted unique `lines` or `coarse` pages.
std::vector<uint64_t> pages_of(const std::vector<uint64_t>& lines, const std::vector<uint64_t>& coarse) {
  constexpr uint64_t kLinesPerPage = kPageShift - ChunkSummary::kLineShift;
  std::vector<uint64_t> out;
  out.reserve(coarse.size() + lines.size() / 8);
  auto c = coarse.begin();
  for (uint64_t line : lines) {
    uint64_t page = line >> kLinesPerPage;
    for (; c != coarse.end() && *c < page; ++c)
      if (out.empty() || out.back() != *c) out.push_back(*c);
    if (out.empty() || out.back() != page) out.push_back(page);
  }
  for (; c != coarse.end(); ++c)
    if (out.empty() || out.back() != *c) out.push_back(*c);
  return out;
}

}  // namespace

void ChunkSummaryBuilder::take(ChunkSummary& out) {
  out.pcs = pcs_.take();
  lines_of_slots(slots_r_.take(), out.lines_read, out.line_slots_read);
  lines_of_slots(slots_w_.take(), out.lines_written, out.line_slots_written);
  out.pages_read_coarse = coarse_r_.take();
  out.pages_written_coarse = coarse_w_.take();
  out.pages_read = pages_of(out.lines_read, out.pages_read_coarse);
  out.pages_written = pages_of(out.lines_written, out.pages_written_coarse);
  out.threads.clear();
  for (uint64_t t : threads_.take()) out.threads.push_back(uint32_t(t));
  last_thread_ = ~0u;
  std::copy(std::begin(regs_), std::end(regs_), out.regs_written);
  std::fill(std::begin(regs_), std::end(regs_), 0);
}

}  // namespace ttd
