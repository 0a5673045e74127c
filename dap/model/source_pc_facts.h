// PcFacts for the line stepper from the program's line table and the
// engine's instruction classes (PcClassCache: trace code bytes, then the
// program image), cached per pc (a step visits the same few pcs over and
// over; each answer is computed once). Counts the steps it could not
// classify, so a step whose call structure is a guess can say so.
#pragma once
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "dap/model/line_stepper.h"
#include "debuginfo/debug_info.h"
#include "engine/query/pc_class_cache.h"

namespace ttd::dap {

class SourcePcFacts : public PcFacts {
 public:
  // debug may be null (no program): then no pc has line information.
  SourcePcFacts(const dbg::DebugInfo* debug, const Trace& trace) : debug_(debug), classes_(trace) {}
  Flow flow(uint64_t eid, uint64_t pc) override;
  bool statement_start(uint64_t pc) override { return fact(pc).statement; }
  std::optional<uint64_t> line_key(uint64_t pc) override;
  // Steps flow() could not classify since the last call (and resets).
  uint64_t take_unclassified() { return std::exchange(unclassified_, 0); }

 private:
  struct Fact {
    int32_t file = -1;  // -1: no line information
    int32_t line = 0;
    bool statement = false;
  };
  const Fact& fact(uint64_t pc);

  const dbg::DebugInfo* debug_;
  query::PcClassCache classes_;
  uint64_t unclassified_ = 0;
  std::unordered_map<uint64_t, Fact> facts_;
  std::unordered_map<std::string, int32_t> file_ids_;
};

}  // namespace ttd::dap
