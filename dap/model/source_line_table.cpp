#include "dap/model/source_line_table.h"

namespace ttd::dap {

const SourceLineTable::Fact& SourceLineTable::fact(uint64_t pc) {
  auto it = facts_.find(pc);
  if (it != facts_.end()) return it->second;
  Fact f;
  if (debug_) {
    if (auto li = debug_->line_at(pc)) {
      auto [fit, fresh] = file_ids_.emplace(li->file, int32_t(file_ids_.size()));
      f.file = fit->second;
      f.line = li->line;
      f.statement = debug_->is_statement_start(pc);
    }
  }
  return facts_.emplace(pc, f).first->second;
}

std::optional<uint64_t> SourceLineTable::line_key(uint64_t pc) {
  const Fact& f = fact(pc);
  if (f.file < 0) return std::nullopt;
  return (uint64_t(uint32_t(f.file)) << 32) | uint32_t(f.line);
}

}  // namespace ttd::dap
