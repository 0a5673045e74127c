// Sends an EffectGroup's records to a TraceSink as register and memory
// effects of one thread / process (UCIR traces have exactly one).
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
  bool emit(const EffectGroup& g);
  void emit_reg_value(uint16_t reg, uint64_t value);

 private:
  void emit_spreg(uint16_t reg, const uint8_t* le, size_t n);

  TraceSink& sink_;
  const ArchDesc& arch_;
  uint64_t tid_, pid_;
};

}  // namespace ttd::fmt::ucir
