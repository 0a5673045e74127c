#include "dap/model/source_pc_facts.h"

namespace ttd::dap {

const SourcePcFacts::Fact& SourcePcFacts::fact(uint64_t pc) {
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

Flow SourcePcFacts::flow(uint64_t eid, uint64_t pc) {
  auto c = classes_.at_step(eid, pc);
  // A chunk that cannot be read classifies nothing; the timeline scan
  // reports the corruption itself.
  Flow f = c ? *c : Flow::Unknown;
  if (f == Flow::Unknown) ++unclassified_;
  return f;
}

std::optional<uint64_t> SourcePcFacts::line_key(uint64_t pc) {
  const Fact& f = fact(pc);
  if (f.file < 0) return std::nullopt;
  return (uint64_t(uint32_t(f.file)) << 32) | uint32_t(f.line);
}

}  // namespace ttd::dap
