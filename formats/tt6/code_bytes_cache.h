// Remembers which opcode the reader last reported at each pc, so the code
// bytes go to the sink when an address first executes (or its opcode
// changes: self-modifying code), not once per executed instruction. A
// direct-mapped table: an eviction only costs one repeated, identical write.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace ttd::fmt::tt6 {

class CodeBytesCache {
 public:
  // calloc: the OS hands over zeroed pages lazily, so a reader of a tiny
  // file does not pay for initialising the whole table.
  CodeBytesCache() : slots_(static_cast<Slot*>(std::calloc(kSlots, sizeof(Slot)))) {
    if (!slots_) throw std::bad_alloc();
  }
  // True if (pc, opcode) is new and must be reported; remembers it.
  bool note(uint32_t pc, uint32_t opcode) {
    // Keys are pc | 1 (pcs are word aligned), so a zeroed slot matches nothing.
    Slot& s = slots_.get()[(pc >> 2) & (kSlots - 1)];
    const uint32_t key = pc | 1u;
    if (s.key == key && s.opcode == opcode) return false;
    s.key = key;
    s.opcode = opcode;
    return true;
  }

 private:
  struct Slot {
    uint32_t key, opcode;
  };
  struct Free {
    void operator()(Slot* p) const { std::free(p); }
  };
  static constexpr size_t kSlots = size_t(1) << 16;
  std::unique_ptr<Slot, Free> slots_;
};

}  // namespace ttd::fmt::tt6
