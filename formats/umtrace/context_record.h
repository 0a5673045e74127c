// rmContext: a full register dump (laid out by the context map) plus
// optional memory blocks, carried by thread-begin, system-call and
// context-change execution records. This parses and bounds-checks one in
// place; the bytes stay in the mapped exec.vtable.
#pragma once
#include <cstdint>

#include "formats/umtrace/exec_table.h"
#include "state/error.h"

namespace ttd::fmt::umtrace {

struct ContextMemRef {
  uint64_t address = 0;
  const uint8_t* data = nullptr;
  uint64_t size = 0;
};

class ContextView {
 public:
  // Parses the rmContext at byte `at` of the record's data; dump_size comes
  // from the context map.
  static Result<ContextView> parse(const ExecRecord& r, uint64_t at, uint16_t dump_size, const std::string& path);

  const uint8_t* registers() const { return regs_; }
  uint32_t mem_count() const { return mem_count_; }
  ContextMemRef mem(uint32_t i) const;

 private:
  const uint8_t* base_ = nullptr;  // the rmContext
  const uint8_t* regs_ = nullptr;
  uint32_t mem_count_ = 0;
};

}  // namespace ttd::fmt::umtrace
