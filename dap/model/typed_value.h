// A typed value as expressions and the variables view handle it: where it
// lives (target memory, or bytes already in hand such as a register or a
// computed number) and its C type. Memory is read only when needed.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debuginfo/debug_types.h"

namespace ttd::dap {

struct TypedValue {
  dbg::TypeRef type;
  enum class Where : uint8_t { Memory, Immediate } where = Where::Immediate;
  uint64_t addr = 0;                   // Memory
  std::vector<uint8_t> bytes, known;   // Immediate (known[i] = 1: byte i is known)
  bool hex = false;                    // show integers in hex (registers, raw addresses)
};

// Built-in C types for casts and computed values; nullptr for unknown names.
dbg::TypeRef builtin_type(std::string_view name, uint8_t ptr_size);
dbg::TypeRef pointer_to(const dbg::TypeRef& target, uint8_t ptr_size);
dbg::TypeRef unsigned_type(uint64_t bytes);  // "uint64_t" etc., for registers

// An immediate integer value of the given type.
TypedValue immediate(const dbg::TypeRef& type, uint64_t v);

}  // namespace ttd::dap
