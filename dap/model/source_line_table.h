// The program's line table for the engine's stepper (engine/motion/
// step_planner.h): which pcs start a statement and which (file, line) a pc
// belongs to, from DWARF, cached per pc (a step visits the same few pcs
// over and over; each answer is computed once). Calls and returns are the
// engine's own question (its instruction classifier), not this table's.
#pragma once
#include <optional>
#include <string>
#include <unordered_map>

#include "debuginfo/debug_info.h"
#include "engine/motion/line_table.h"

namespace ttd::dap {

class SourceLineTable : public LineTable {
 public:
  // debug may be null (no program): then no pc has line information.
  explicit SourceLineTable(const dbg::DebugInfo* debug) : debug_(debug) {}
  bool statement_start(uint64_t pc) override { return fact(pc).statement; }
  std::optional<uint64_t> line_key(uint64_t pc) override;

 private:
  struct Fact {
    int32_t file = -1;  // -1: no line information
    int32_t line = 0;
    bool statement = false;
  };
  const Fact& fact(uint64_t pc);

  const dbg::DebugInfo* debug_;
  std::unordered_map<uint64_t, Fact> facts_;
  std::unordered_map<std::string, int32_t> file_ids_;
};

}  // namespace ttd::dap
