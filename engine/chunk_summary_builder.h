// Collects one chunk's summary (engine/index_layout.h, ChunkSummary) while
// the index builder indexes its steps: the pcs, the threads, the 8-byte
// slots that short accesses touch (turned into lines and slot masks), the
// pages of long accesses, the registers written. Calls arrive once per
// step or effect, mostly repeats, so they are inline (forced: the compiler
// kept pc() out of line, a call per step) and cheap.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/index_layout.h"
#include "engine/unique_collector.h"
#include "state/paged_memory.h"

namespace ttd {

class ChunkSummaryBuilder {
 public:
  [[gnu::always_inline]] void pc(uint64_t pc) { pcs_.add(pc); }
  [[gnu::always_inline]] void thread(uint32_t tidx) {
    if (tidx == last_thread_) return;
    threads_.add(tidx);
    last_thread_ = tidx;
  }
  [[gnu::always_inline]] void reg(uint16_t reg) { regs_[reg >> 6] |= 1ull << (reg & 63); }
  [[gnu::always_inline]] void read(uint64_t addr, uint64_t len) { access(slots_r_, coarse_r_, addr, len); }
  [[gnu::always_inline]] void write(uint64_t addr, uint64_t len) { access(slots_w_, coarse_w_, addr, len); }
  // Fills `out` with what was collected since the last take() and starts over.
  void take(ChunkSummary& out);
  // Memory held, this object's included (a hand-off bound counts it).
  size_t bytes() const {
    return sizeof(*this) + pcs_.heap_bytes() + threads_.heap_bytes() + slots_r_.heap_bytes() +
           slots_w_.heap_bytes() + coarse_r_.heap_bytes() + coarse_w_.heap_bytes();
  }

 private:
  // Slots for short accesses, coarse pages for long ones.
  // An access within one slot (most are) is added here, inline: units()
  // was a call per access (4 % of a loop build's reader thread).
  [[gnu::always_inline]] static void access(UniqueCollector& slots, UniqueCollector& coarse, uint64_t addr, uint64_t len) {
    if (len > ChunkSummary::kLineAccessMax) {
      units(coarse, addr, len, kPageShift);
    } else if (len != 0 && addr >> ChunkSummary::kSlotShift == (addr + len - 1) >> ChunkSummary::kSlotShift) {
      slots.add(addr >> ChunkSummary::kSlotShift);
    } else {
      units(slots, addr, len, ChunkSummary::kSlotShift);
    }
  }
  // Adds the numbers of the 2^shift-byte units [addr, addr+len) touches.
  static void units(UniqueCollector& c, uint64_t addr, uint64_t len, uint64_t shift) {
    if (len == 0) return;
    for (uint64_t u = addr >> shift, last = (addr + len - 1) >> shift; u <= last; ++u) c.add(u);
  }

  UniqueCollector pcs_, threads_, slots_r_, slots_w_, coarse_r_, coarse_w_;
  uint32_t last_thread_ = ~0u;  // thread of the chunk's previous step
  uint64_t regs_[4] = {0, 0, 0, 0};
};

}  // namespace ttd
