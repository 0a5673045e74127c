// ins.itable: the instructions ever instrumented (insRec, 64 bytes each)
// with their decoded form (decodedIns) and disassembly in the extra area.
// An execution record names its insRec by id; the decoded form says how
// the record's local context (LC) is laid out. This table turns each
// decodedIns, on first use, into an InstructionPlan: the LC slots sorted
// into "state before" registers, memory read, registers written after and
// memory written, each with its register resolved, so that replaying an
// execution record is a walk over a few precomputed slots.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "formats/umtrace/itable_header.h"
#include "formats/umtrace/mapped_file.h"
#include "formats/umtrace/register_resolver.h"

namespace ttd::fmt::umtrace {

struct RegSlot {
  uint16_t lc_offset = 0;
  uint16_t size = 0;  // bytes used (cut to the register)
  RegTarget target;
  bool zero_extend = false;
};

struct MemSlot {
  uint16_t lc_offset = 0;  // the 64-bit address; the value follows it
  uint32_t size = 0;
  uint64_t addr_mask = ~0ull;  // AddrWidth significant bytes
};

struct InstructionPlan {
  uint64_t id = 0;
  uint64_t address = 0;
  uint8_t type = 0;  // insRec.Type: 0 normal, 1-6 system call kinds, 8 nop, 9 prefetch
  bool cs64 = false;
  uint8_t code_size = 0;
  uint8_t code[15] = {};
  int32_t module_id = -1;
  uint16_t lc_size = 0;
  std::vector<RegSlot> before;  // inputs and pre-values of outputs: the state at the record
  std::vector<MemSlot> reads;   // memory inputs with the value read
  std::vector<RegSlot> after;   // register outputs
  std::vector<MemSlot> writes;  // memory outputs with the value written
  int32_t pc_after = -1;        // LC offset of the instruction pointer's after-value (branches), -1 if none
  uint8_t pc_size = 0;
  bool code_emitted = false;    // the reader has shown its code bytes as memory
};

class InstructionTable {
 public:
  static Result<std::unique_ptr<InstructionTable>> open(const std::string& path);

  uint64_t count() const { return header_.row_count; }
  uint32_t record_version() const { return header_.record_version; }
  const std::string& path() const { return file_->path(); }

  // The plan for instruction id (decoded and checked on first use). The
  // pointer stays valid as long as the table.
  Result<InstructionPlan*> plan(uint64_t id, const RegisterResolver& regs, uint16_t elem_count);
  // The plan if already decoded, else nullptr (the per-record fast path).
  InstructionPlan* cached(uint64_t id) {
    if (id >= plan_index_.size()) return nullptr;
    const uint32_t i = plan_index_[id];
    return i ? &plans_[i - 1] : nullptr;
  }
  // Code at [lo, hi] may have been replaced (a module was mapped or
  // unmapped there): show the code bytes again when they next run.
  void forget_code_in(uint64_t lo, uint64_t hi);
  // The disassembly text of instruction id.
  Result<std::string> disassembly(uint64_t id) const;

 private:
  InstructionTable() = default;
  Result<InstructionPlan> decode(uint64_t id, const RegisterResolver& regs, uint16_t elem_count) const;

  std::unique_ptr<MappedFile> file_;
  ItableHeader header_;
  std::vector<uint32_t> plan_index_;  // id -> 1 + index into plans_, 0 = not decoded yet
  std::deque<InstructionPlan> plans_;
};

}  // namespace ttd::fmt::umtrace
