// Internal to debuginfo: the variables DWARF says are visible at a pc —
// parameters and locals of the enclosing blocks (innermost first) and the
// CU-level globals — with their types and location expressions.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "debuginfo/debug_types.h"
#include "debuginfo/type_desc.h"

namespace ttd::dbg {

class DwarfFile;

class VariableIndex {
 public:
  VariableIndex(const DwarfFile& f, uint64_t bias) : elf_(f), bias_(bias) {}
  // Locals and parameters at pc: innermost block first, parameters last.
  std::vector<VariableDesc> locals_at(uint64_t pc);
  // Globals and statics of the compilation unit holding pc.
  std::vector<VariableDesc> globals_at(uint64_t pc);
  // A global or static with this name, the CU of pc first, then all CUs.
  std::optional<VariableDesc> global_named(uint64_t pc, std::string_view name);
  // Name of the function (or inlined function) holding pc, from DWARF.
  std::string function_name(uint64_t pc);

 private:
  bool describe(Dwarf_Die* die, uint64_t file_pc, const DwarfExpr& frame_base, VariableDesc& out);
  std::vector<VariableDesc> cu_globals(Dwarf_Die* cu);

  const DwarfFile& elf_;
  uint64_t bias_;
  TypeBuilder types_;
};

}  // namespace ttd::dbg
