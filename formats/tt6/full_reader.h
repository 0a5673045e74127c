// Amber FULL traces (PowerPC): the cookie 0xA1118E17, then per executed
// instruction one 1004-byte record - the opcode and the whole user state
// (Darwin's ppc_thread_state, ppc_float_state, ppc_vector_state).
//
// Record n is step n: srr0 is its pc (the address of the instruction the
// opcode belongs to), and its registers are the state BEFORE that
// instruction. So record 0 is the initial state, the registers that differ
// in record n+1 are step n's register effects, and step n's memory effects
// come from its opcode and the two states (full_memory_effects.h). The
// state after the last instruction is not in the trace: its registers
// become unknown after it.
#pragma once
#include <memory>
#include <string>

#include "formats/common/trace_reader.h"

namespace ttd::fmt::tt6 {

class FullReader : public TraceReader {
 public:
  // Checks the cookie.
  static Result<std::unique_ptr<FullReader>> open(const std::string& path);
  Status read(TraceSink& sink, const Progress& progress) override;
  static TraceInfo info();

 private:
  explicit FullReader(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace ttd::fmt::tt6
