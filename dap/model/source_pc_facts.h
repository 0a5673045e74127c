// PcFacts for the line stepper from the program's line table and the
// instruction decoder, cached per pc (a step visits the same few pcs over
// and over; each answer is computed once).
#pragma once
#include <optional>
#include <string>
#include <unordered_map>

#include "dap/model/line_stepper.h"
#include "debuginfo/debug_info.h"

namespace ttd::dap {

class SourcePcFacts : public PcFacts {
 public:
  // debug may be null (no program): then no pc has line information.
  SourcePcFacts(const dbg::DebugInfo* debug, InstructionDecoder& decoder) : debug_(debug), decoder_(decoder) {}
  Flow flow(uint64_t pc) override { return decoder_.flow(pc); }
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
  InstructionDecoder& decoder_;
  std::unordered_map<uint64_t, Fact> facts_;
  std::unordered_map<std::string, int32_t> file_ids_;
};

}  // namespace ttd::dap
