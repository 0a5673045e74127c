// What the steps of a chunk did at each pc, remembered so the next visit
// is predicted (index version 11): an instruction's size, and which pc
// followed it last time (a loop's branch goes where it went before). The
// step codec stores "as predicted" in the header byte instead of a size
// varint on ~85 % of x86 steps and a pc delta on most taken branches.
//
// Encoder and decoder update it alike, step by step, so it is never
// stored. A direct-mapped table: a collision only costs a prediction.
// Reset at every chunk start (a generation number, not a memset), so each
// chunk decodes on its own.
#pragma once
#include <cstdint>
#include <memory>

namespace ttd {

class StepPcMemo {
 public:
  StepPcMemo() : table_(new Entry[kEntries]()) {}
  void reset() {
    prev_ = nullptr;
    if (++gen_ == 0) {  // wrapped: no stale entry may look current
      for (uint32_t i = 0; i < kEntries; ++i) table_[i] = Entry{};
      gen_ = 1;
    }
  }
  // The pc predicted for the next step (fall_through: where the previous
  // step ended, the prediction when nothing is known).
  uint64_t predicted_pc(uint64_t fall_through) const { return prev_ ? prev_->next : fall_through; }
  // Notes that the step at pc follows the previous one and returns the size
  // predicted for it (`otherwise` when the pc is not remembered). Call
  // size_is() next.
  uint32_t visit(uint64_t pc, uint32_t otherwise) {
    if (prev_) prev_->next = pc;
    Entry& e = table_[slot_of(pc)];
    prev_ = &e;
    if (e.gen == gen_ && e.pc == pc) {
      hit_ = true;
      return e.size;
    }
    hit_ = false;
    return otherwise;
  }
  void size_is(uint64_t pc, uint32_t size) {
    if (!hit_) {
      prev_->pc = pc;
      prev_->gen = gen_;
      prev_->next = pc + size;  // until a step shows otherwise
    }
    prev_->size = size;
  }

 private:
  static constexpr uint32_t kBits = 10;
  static constexpr uint32_t kEntries = 1u << kBits;
  static uint32_t slot_of(uint64_t pc) { return uint32_t((pc * 0x9E3779B97F4A7C15ull) >> (64 - kBits)); }
  struct Entry {
    uint64_t pc = 0, next = 0;
    uint32_t size = 0, gen = 0;
  };
  std::unique_ptr<Entry[]> table_;
  Entry* prev_ = nullptr;  // the previous step's entry
  uint32_t gen_ = 1;
  bool hit_ = false;
};

}  // namespace ttd
