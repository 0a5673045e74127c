// A small DWARF expression evaluator for the location expressions -O0 and
// -O1 compilers emit (registers, frame base, CFA, constants, arithmetic,
// dereferences). Unsupported operations are reported, never guessed.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "debuginfo/debug_types.h"
#include "state/error.h"

namespace ttd::dbg {

struct ExprContext {
  DwarfRegisterReader regs;           // may be empty: register ops then fail
  MemoryReader mem;                   // may be empty: DW_OP_deref fails
  std::optional<uint64_t> cfa;        // for DW_OP_call_frame_cfa
  const DwarfExpr* frame_base = nullptr;  // for DW_OP_fbreg
  uint8_t ptr_size = 8;
};

struct ExprLocation {
  enum class Kind : uint8_t { Memory, Register, Value, Bytes } kind = Kind::Memory;
  uint64_t value = 0;          // address / DWARF regno / the value itself
  std::vector<uint8_t> bytes;  // Kind::Bytes (DW_OP_implicit_value)
};

Result<ExprLocation> evaluate_location(const DwarfExpr& expr, const ExprContext& ctx);

}  // namespace ttd::dbg
