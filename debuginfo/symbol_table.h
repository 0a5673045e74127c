// Functions named by the ELF symbol tables (.symtab, else .dynsym), sorted
// by address: pc -> function and name -> addresses. Works for stripped-of-
// DWARF programs too; static libc functions appear like any other.
//
// The table is sorted at its second lookup, not when built: a one-shot
// `ttd query` asks one pc of libc's ~7,000 debug-symbol functions, and a
// scan answers that for a fraction of the sort's cost. The table keeps
// views into the symbol file's string table: it must not outlive the
// DwarfFile it was built from.
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
  // covers up to the next symbol). The pointer lives as long as the table.
  const FunctionSym* function_at(uint64_t pc) const;
  // Every function with exactly this name (static functions may repeat).
  // The name index is built at the first call: a one-shot query only asks
  // pc -> function. Not thread-safe (as DebugInfo).
  std::vector<const FunctionSym*> lookup(std::string_view name) const;
  // One per address, by address.
  const std::vector<FunctionSym>& functions() const;

 private:
  struct Candidate {
    std::string_view name;  // in the symbol file's string table
    uint64_t addr = 0, size = 0;
    size_t order = 0;  // table order: ties keep it, as a stable sort would
  };
  void sort() const;

  mutable std::vector<Candidate> candidates_;  // emptied by sort()
  mutable bool sorted_ = false;
  mutable std::optional<FunctionSym> scanned_;  // the answer of the one lookup before the sort
  mutable std::vector<FunctionSym> funcs_;  // by address, one per address, after sort()
  // Names of symbols at an address funcs_ already has, with that entry.
  mutable std::vector<std::pair<std::string, size_t>> aliases_;
  mutable std::unordered_multimap<std::string, size_t> by_name_;
  mutable bool by_name_built_ = false;
};

}  // namespace ttd::dbg
