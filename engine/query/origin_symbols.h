// Function names and source lines for the pcs of an origin answer, from
// the traced program's ELF (symbols, DWARF lines). Which file: the one the
// caller names (--program), else the program image the trace uses, else
// the program the trace names when that file exists. No file, or one
// without symbols, gives no names; that is never an error.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engine/trace.h"

namespace ttd::query {

struct PcPlace {
  std::string function;  // "" when no symbol covers the pc
  uint64_t offset = 0;   // pc - function start
  std::string file;      // "" without DWARF lines
  int line = 0;
};

// nullopt when nothing is known about the pc.
using PcSymbolizer = std::function<std::optional<PcPlace>(uint64_t pc)>;

// A symbolizer for the trace's program (an empty function when there is
// no program file). An explicit path that cannot be read is an error.
Result<PcSymbolizer> program_symbolizer(const Trace& t, const std::string& explicit_program = "");

// "audit_removed+0x13 (linked_list.c:71)", "" when nothing is known.
std::string pc_place_text(const std::optional<PcPlace>& p);

}  // namespace ttd::query
