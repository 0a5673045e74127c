// Remembers which opcode the reader last reported at each pc, so the code
// bytes go to the sink when an address first executes (or its opcode
// changes: self-modifying code), not once per executed instruction. A
// direct-mapped table: an eviction only costs one repeated, identical write.
#pragma once
#include <cstdint>
#include <memory>

namespace ttd::fmt::tt6 {

class CodeBytesCache {
 public:
  CodeBytesCache() : slots_(new Slot[kSlots]) {
    for (size_t i = 0; i < kSlots; ++i) slots_[i] = Slot{1, 0};  // pc 1: never a word-aligned pc
  }
  // True if (pc, opcode) is new and must be reported; remembers it.
  bool note(uint32_t pc, uint32_t opcode) {
    Slot& s = slots_[(pc >> 2) & (kSlots - 1)];
    if (s.pc == pc && s.opcode == opcode) return false;
    s.pc = pc;
    s.opcode = opcode;
    return true;
  }

 private:
  struct Slot {
    uint32_t pc, opcode;
  };
  static constexpr size_t kSlots = size_t(1) << 16;
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace ttd::fmt::tt6
