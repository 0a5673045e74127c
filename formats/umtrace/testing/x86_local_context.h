// Builds an instruction execution record the way UMTracer does, from an
// instruction that really ran: its decoded form (Capstone, through
// X86InstructionDecoder) with local-context slots for every register it
// reads (before) and writes (write-only pre-values, then after-values) and
// every memory location it touched (address + value), explicit operands
// pointing at those slots, the memory phrase and constant slots; and the
// local-context bytes holding this execution's values.
//
// The producer supplies the register state before and after the
// instruction as two context dumps in X86RegisterCatalog's layout, and the
// memory accesses it observed. Registers that changed without the decoder
// listing them (Capstone misses some implicit writes) are added as outputs
// of their largest register, so the record always explains every change.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "formats/umtrace/testing/umtrace_writer_types.h"
#include "formats/umtrace/testing/x86_instruction_decoder.h"

namespace ttd::fmt::umtrace {

struct ObservedAccess {
  bool write = false;
  uint64_t addr = 0;
  std::vector<uint8_t> before;  // read: the value read; write: memory before the write
  std::vector<uint8_t> after;   // write: memory after the instruction
};

struct ExecutedX86 {
  uint64_t address = 0;
  std::span<const uint8_t> code;         // at least the instruction's bytes
  std::span<const uint8_t> dump_before;  // catalogue dump layout, before the instruction
  std::span<const uint8_t> dump_after;   // and after it
  std::vector<ObservedAccess> accesses;  // in the order they happened
  int32_t module_id = -1;
};

struct BuiltInstruction {
  InstructionSpec spec;
  std::vector<uint8_t> lc;
  uint8_t exec_flags = 0;  // kFlag64Bit, kFlagNotExecuted as they apply
};

class X86LocalContextBuilder {
 public:
  static Result<std::unique_ptr<X86LocalContextBuilder>> create(bool mode64);
  Result<BuiltInstruction> build(const ExecutedX86& e);

 private:
  X86LocalContextBuilder() = default;
  std::unique_ptr<X86InstructionDecoder> decoder_;
  bool mode64_ = true;
};

}  // namespace ttd::fmt::umtrace
