// What the traced program's ELF file tells a source-level debugger:
// function symbols, DWARF line tables, call-frame unwinding, variables and
// their types, and code bytes. Missing parts (no DWARF, no symbols) make
// the matching queries answer "nothing"; they never fail the whole file.
//
// Addresses are runtime addresses: the load bias given at open is added to
// everything the file says (0 for the non-PIE static programs we record).
// Not thread-safe: one debugger session uses one DebugInfo at a time.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debuginfo/debug_types.h"
#include "state/error.h"

namespace ttd::dbg {

class DebugInfo {
 public:
  static Result<std::unique_ptr<DebugInfo>> open(const std::string& elf_path, uint64_t load_bias = 0);
  ~DebugInfo();

  const std::string& path() const;
  uint16_t machine() const;  // EM_* from elf.h
  bool has_lines() const;

  // Symbols.
  std::optional<FunctionSym> function_at(uint64_t pc) const;
  std::vector<FunctionSym> functions_named(std::string_view name) const;
  // Where a breakpoint on a function goes: after its prologue when the
  // line table says where that ends, else its first instruction.
  std::optional<uint64_t> breakpoint_address(const FunctionSym& f) const;
  // True when pc is a function's first instruction.
  bool is_function_entry(uint64_t pc) const;

  // Lines.
  std::optional<LineInfo> line_at(uint64_t pc) const;
  // A statement starts at pc and pc is not a function's entry (the entry
  // row belongs to the prologue, which line stepping passes through).
  bool is_statement_start(uint64_t pc) const;
  // Breakpoint locations for file:line, one per function (the lowest
  // address of the line in it, moved past the prologue at a function's
  // first line), as gdb places them.
  std::vector<LineLocation> resolve_line(std::string_view file, int line) const;
  std::vector<std::string> source_files() const;

  // Frames: innermost first.
  std::vector<UnwoundFrame> unwind(uint64_t pc, const DwarfRegisterReader& regs, const MemoryReader& mem,
                                   size_t max_frames) const;
  // The gdb name of a DWARF register number ("" when unknown).
  std::string_view dwarf_register_name(int regno) const;
  int dwarf_register_count() const;
  uint8_t pointer_size() const;

  // Variables.
  std::vector<VariableDesc> locals_at(uint64_t pc) const;
  std::vector<VariableDesc> globals_at(uint64_t pc) const;
  std::optional<VariableDesc> global_named(uint64_t pc, std::string_view name) const;

  // Code bytes from the file's loadable segments; returns bytes copied.
  size_t read_code(uint64_t addr, uint8_t* dst, size_t len) const;

 private:
  struct Impl;
  explicit DebugInfo(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ttd::dbg
