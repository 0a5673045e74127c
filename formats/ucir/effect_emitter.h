// Sends an EffectGroup's records to a TraceSink as register and memory
// effects of one process; register effects go to the step's thread, or to
// the thread a thread keyframe inside the group began (ucir_effects.h).
#pragma once
#include "formats/common/trace_sink.h"
#include "formats/ucir/ucir_effects.h"

namespace ttd::fmt::ucir {

class EffectEmitter {
 public:
  EffectEmitter(TraceSink& sink, const ArchDesc& arch, uint64_t tid, uint64_t pid)
      : sink_(sink), arch_(arch), tid_(tid), pid_(pid) {}

  // Emits every effect of g in order. Returns true if g held an OP_EXIT
  // (the caller ends the thread after the step's last effect).
  bool emit(const EffectGroup& g) { return emit(g, tid_); }
  // The same, with register effects going to thread `tid`.
  bool emit(const EffectGroup& g, uint64_t tid);
  void emit_reg_value(uint16_t reg, uint64_t value) { emit_reg_value(tid_, reg, value); }

 private:
  void emit_reg_value(uint64_t tid, uint16_t reg, uint64_t value);
  void emit_spreg(uint64_t tid, uint16_t reg, const uint8_t* le, size_t n);

  TraceSink& sink_;
  const ArchDesc& arch_;
  uint64_t tid_, pid_;
};

}  // namespace ttd::fmt::ucir
