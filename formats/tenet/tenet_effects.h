// Turns parsed Tenet lines into sink calls: the first line as initial state,
// every later line as the effects of the step before it (see the convention
// in tenet_reader.h).
#pragma once
#include <string>
#include <vector>

#include "formats/common/trace_sink.h"
#include "formats/tenet/tenet_line.h"
#include "state/arch.h"

namespace ttd::fmt::tenet {

// Registers of Tenet's set for this arch (not the instruction pointer) that
// the first line leaves out. Tenet's own loader takes them as zero, and so
// do we: the Pin tracer diffs its first line against zeroed registers, so
// the zero registers are exactly the ones it omits.
std::vector<uint16_t> registers_missing_from_first_line(const ArchDesc& arch, const ParsedLine& line);

class EffectEmitter {
 public:
  EffectEmitter(const ArchDesc& arch, TraceSink& sink, uint64_t tid, uint64_t pid)
      : arch_(arch), sink_(sink), tid_(tid), pid_(pid) {}

  // Initial state from the first line, with the registers it leaves out
  // set to zero (see registers_missing_from_first_line).
  void initial_state(const ParsedLine& line);

  // Effects of the step before `line`: its register changes, then its reads,
  // then its writes.
  void step_effects(const ParsedLine& line);

 private:
  void registers(const ParsedLine& line);
  bool overlaps_a_write(const ParsedLine& line, const MemoryAccess& read) const;

  const ArchDesc& arch_;
  TraceSink& sink_;
  uint64_t tid_, pid_;
};

}  // namespace ttd::fmt::tenet
