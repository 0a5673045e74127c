// Functions named by the ELF symbol tables (.symtab, else .dynsym), sorted
// by address: pc -> function and name -> addresses. Works for stripped-of-
// DWARF programs too; static libc functions appear like any other.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "debuginfo/debug_types.h"

namespace ttd::dbg {

class DwarfFile;

class SymbolTable {
 public:
  static SymbolTable build(const DwarfFile& f, uint64_t bias);

  // The function whose [addr, addr+size) holds pc (a symbol without size
  // covers up to the next symbol).
  const FunctionSym* function_at(uint64_t pc) const;
  // Every function with exactly this name (static functions may repeat).
  // The name index is built at the first call: a one-shot query only asks
  // pc -> function. Not thread-safe (as DebugInfo).
  std::vector<const FunctionSym*> lookup(std::string_view name) const;
  const std::vector<FunctionSym>& functions() const { return funcs_; }

 private:
  std::vector<FunctionSym> funcs_;  // by address, one per address
  // Names of symbols at an address funcs_ already has, with that entry.
  std::vector<std::pair<std::string, size_t>> aliases_;
  mutable std::unordered_multimap<std::string, size_t> by_name_;
  mutable bool by_name_built_ = false;
};

}  // namespace ttd::dbg
