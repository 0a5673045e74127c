// Every CU's DWARF line table merged into one address-sorted table:
// pc -> source line, "is this pc where a statement starts", and source
// line -> breakpoint addresses. Rows are copied out of libdw once.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debuginfo/debug_types.h"

namespace ttd::dbg {

class DwarfFile;
class SymbolTable;

class LineTable {
 public:
  static LineTable build(const DwarfFile& f, uint64_t bias);
  bool empty() const { return rows_.empty(); }

  // The row covering pc (nullopt: no line information, or line 0).
  std::optional<LineInfo> line_at(uint64_t pc) const;
  // True if a statement row starts exactly at pc.
  bool is_statement_start(uint64_t pc) const;
  // Statement-start addresses of `line` in `file`; if the line has no code,
  // the next line that has some (as gdb moves a breakpoint). `file` matches
  // a recorded path exactly, or by its trailing path components.
  std::vector<LineLocation> resolve(std::string_view file, int line) const;
  // The first row address in [func_start, func_end) whose line differs from
  // the line at func_start: where a function's prologue ends at -O0.
  std::optional<uint64_t> after_prologue(uint64_t func_start, uint64_t func_end) const;
  const std::vector<std::string>& files() const { return files_; }

 private:
  struct Row {
    uint64_t addr = 0;
    uint32_t file = 0;  // index into files_
    int32_t line = 0;
    uint16_t column = 0;
    bool stmt = false;
    bool end_sequence = false;
  };
  // Index of the last row (in sequence order) at or below pc.
  std::optional<size_t> row_index(uint64_t pc) const;
  std::vector<uint32_t> matching_files(std::string_view file) const;

  std::vector<Row> rows_;  // sorted by address, ties keep sequence order
  std::vector<std::string> files_;
};

}  // namespace ttd::dbg
