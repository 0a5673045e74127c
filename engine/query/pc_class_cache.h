// Instruction classes (call / return / jump / other / unknown) per pc,
// decided once per pc from the code bytes in memory at the start of the
// first chunk that runs it (the chunk's keyframe), or from the program
// image (Trace::program()) where the trace holds none, then looked up per
// step. Shared by the call query and the DAP stepper (at_step), so both
// see the same classes.
#pragma once
#include <array>
#include <cstdint>
#include <unordered_map>

#include "engine/query/instruction_class.h"
#include "engine/trace.h"

namespace ttd::query {

class PcClassCache {
 public:
  explicit PcClassCache(const Trace& t);

  // Classifies every pc in chunk c's summary not seen before.
  Status prepare(size_t chunk);
  // The class of a pc (Unknown for a pc prepare() has not seen).
  InsnClass get(uint64_t pc) {
    Front& f = front_[(pc ^ (pc >> 12)) & (front_.size() - 1)];
    if (f.pc == pc) return f.cls;
    auto it = classes_.find(pc);
    InsnClass c = it == classes_.end() ? InsnClass::Unknown : it->second;
    f = Front{pc, c};
    return c;
  }
  // The class of the instruction step `eid` runs, whose pc is `pc`
  // (prepares the step's chunk first when its pc is new).
  Result<InsnClass> at_step(uint64_t eid, uint64_t pc);
  // Whether a chunk can hold a call or return (or a pc without code
  // bytes); false lets the call walker skip it undecoded.
  bool may_call_or_return(size_t chunk);

  uint64_t classified() const { return classes_.size(); }
  uint64_t unknown() const { return unknown_; }            // pcs without decodable code bytes
  uint64_t from_program() const { return from_program_; }  // pcs classified from the program image

 private:
  struct Front {
    uint64_t pc = ~0ull;
    InsnClass cls = InsnClass::Unknown;
  };
  const Trace& t_;
  InstructionClassifier cls_;
  std::unordered_map<uint64_t, InsnClass> classes_;
  std::array<Front, 4096> front_;
  uint64_t unknown_ = 0, from_program_ = 0;
};

// The known prefix of the n code bytes at pc in any process of the state
// (empty: none known), for decoding an instruction the trace ran.
std::vector<uint8_t> code_in_memory(const MachineState& st, uint64_t pc, size_t n);

}  // namespace ttd::query
