// A program's line table as the engine's source-line stepping sees it
// (Timeline::step_by, engine/motion/step_planner.h): DAP hands over the
// DWARF one (dap/model/source_line_table.h), tests script one. A
// front-facing header: a front end implements it without including the
// planner and the step stream under it.
#pragma once
#include <cstdint>
#include <optional>

namespace ttd {

class LineTable {
 public:
  virtual ~LineTable() = default;
  virtual bool statement_start(uint64_t pc) = 0;
  // Identifies (file, line); nullopt where the pc has no line information.
  virtual std::optional<uint64_t> line_key(uint64_t pc) = 0;
};

}  // namespace ttd
