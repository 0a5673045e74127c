// What the step encoder and decoder both remember within a chunk, and
// update alike so that the decoder reproduces the encoder's predictions:
// where recent memory accesses ended (AccessEnds) and each register's
// last values (RegisterHistory). Both reset at each chunk start.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/byte_codec.h"  // zigzag

namespace ttd {

// Where the chunk's last accesses ended, one per slot. An access is coded
// relative to the slot nearest its address (a loop that alternates stack
// and heap keeps both near); a near access moves its slot, a far one
// replaces the slots in turn. Shared by encoder and decoder, which update
// it alike from (slot, distance).
class AccessEnds {
 public:
  static constexpr uint64_t kNear = 1u << 14;  // zigzag distances of up to two varint bytes
  void reset() {
    end_ = {};
    next_ = 0;
  }
  uint64_t end(uint32_t slot) const { return end_[slot]; }
  // The slot nearest addr; zz is the zigzag distance from it.
  uint32_t nearest(uint64_t addr, uint64_t& zz) const {
    // Two pairs compared side by side: shorter than a chain of four.
    const uint64_t d0 = zigzag(int64_t(addr - end_[0])), d1 = zigzag(int64_t(addr - end_[1]));
    const uint64_t d2 = zigzag(int64_t(addr - end_[2])), d3 = zigzag(int64_t(addr - end_[3]));
    const uint32_t a = d1 < d0 ? 1 : 0, b = d3 < d2 ? 3 : 2;
    const uint64_t da = d1 < d0 ? d1 : d0, db = d3 < d2 ? d3 : d2;
    if (db < da) return zz = db, b;
    return zz = da, a;
  }
  void update(uint32_t slot, uint64_t zz, uint64_t end) {
    if (zz < kNear) {
      end_[slot] = end;
    } else {
      end_[next_] = end;
      next_ = (next_ + 1) & 3u;
    }
  }

 private:
  std::array<uint64_t, 4> end_{};
  uint32_t next_ = 0;
};

// Per-chunk memory of register values, shared by encoder and decoder:
// per register its last value and, kPrior entries further, the different
// value it held before (note()).
// Tables outlive reset(): the first in_use_ belong to the chunk,
// the rest wait, allocated, to be zeroed for the next thread that needs one
// (a chunk boundary every few thousand steps would otherwise free and allocate).
class RegisterHistory {
 public:
  static constexpr size_t kPrior = 256;
  // Records x as the register's value (slot: from slot()).
  static void note(uint64_t& slot, uint64_t x) {
    if (x == slot) return;
    (&slot)[kPrior] = slot;
    slot = x;
  }
  void reset() {
    in_use_ = 0;
    last_tidx_ = ~0u;
  }
  uint64_t& slot(uint32_t tidx, uint16_t reg) {
    if (tidx == last_tidx_) [[likely]]
      return last_[reg];
    return other_slot(tidx, reg);
  }

 private:
  uint64_t& other_slot(uint32_t tidx, uint16_t reg);
  std::vector<std::pair<uint32_t, std::vector<uint64_t>>> tables_;
  size_t in_use_ = 0;
  uint32_t last_tidx_ = ~0u;  // the table used last, found without a search
  uint64_t* last_ = nullptr;
};

}  // namespace ttd
