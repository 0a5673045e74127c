// Hand-made UMTracer traces for tests that need records no real execution
// gives on demand (unreliable flags, non-executed conditionals with changed
// outputs, 32-bit records in a 64-bit trace, unknown record types) and as
// the valid base that bad-input tests damage. Uses the writer's x86
// register catalogue for the context map and dumps.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "formats/umtrace/testing/umtrace_writer.h"

namespace ttd::test {

struct SlotValue {
  enum Group : uint8_t { Input, OutputBefore, After };
  Group group = Input;
  std::string reg;               // XED name ("RAX", "AH"); empty for memory
  uint64_t addr = 0;             // memory slots
  std::vector<uint8_t> bytes;    // the value (register: little-endian, its size)
  uint16_t mem_name = fmt::umtrace::kRegMem0;
};

SlotValue in_reg(const std::string& reg, uint64_t v, bool mode64 = true);
SlotValue out_before(const std::string& reg, uint64_t v, bool mode64 = true);
SlotValue after_reg(const std::string& reg, uint64_t v, bool mode64 = true);
SlotValue in_mem(uint64_t addr, std::vector<uint8_t> bytes);
SlotValue after_mem(uint64_t addr, std::vector<uint8_t> bytes);

class SyntheticUmtrace {
 public:
  explicit SyntheticUmtrace(const std::string& dir, fmt::umtrace::WriterOptions opt = {});
  fmt::umtrace::UmtraceWriter& writer() { return *w_; }
  uint32_t thread(uint32_t win_tid, uint64_t tib = 0);
  // A context dump with these registers (XED names) set, the rest zero.
  std::vector<uint8_t> dump(const std::vector<std::pair<std::string, uint64_t>>& regs, bool mode64 = true) const;
  uint64_t thread_begin(uint32_t thread, const std::vector<std::pair<std::string, uint64_t>>& regs,
                        uint8_t flags = fmt::umtrace::kFlag64Bit);
  // One instruction record at address (code: 1..15 bytes) with these slots.
  uint64_t instruction(uint32_t thread, uint8_t flags, uint64_t address, const std::vector<SlotValue>& slots,
                       std::vector<uint8_t> code = {0x90}, bool cs64 = true);
  void finish();

 private:
  std::unique_ptr<fmt::umtrace::UmtraceWriter> w_;
};

}  // namespace ttd::test
