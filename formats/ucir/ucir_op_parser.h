// Parses the decompressed UCIR op stream (frames of little-endian ops, as
// usercorn's ops.go packs them) straight from the OpWindow with raw
// pointer reads, feeding effects and steps to a StepAssembler. No
// allocation per op once the effect groups have grown.
#pragma once
#include <string>

#include "formats/common/trace_reader.h"
#include "formats/ucir/uc1_registers.h"
#include "formats/ucir/ucir_effects.h"
#include "formats/ucir/ucir_op_window.h"
#include "formats/ucir/ucir_step_assembler.h"

namespace ttd::fmt::ucir {

class OpParser {
 public:
  OpParser(OpWindow& window, const ArchDesc& arch, const Uc1RegisterMap& regs, StepAssembler& steps);

  // If the stream starts with OP_KEYFRAME, parses it into kf and returns
  // true; otherwise consumes nothing and returns false.
  Result<bool> read_keyframe(EffectGroup& kf);
  // Parses every remaining op; calls steps.finish() at the clean end.
  Status run(const Progress& progress);

  uint64_t frames() const { return frames_; }
  uint64_t extra_keyframes() const { return extra_keyframes_; }
  uint64_t ignored_registers() const { return ignored_regs_; }

 private:
  // Ensures n bytes of the op at `off` are in the window.
  Status need(size_t n, uint8_t op, uint64_t off);
  // Parses one op that can appear inside a frame, keyframe or syscall
  // (everything but FRAME/KEYFRAME/STEP/SYSCALL) into g.
  Status parse_effect(uint8_t op, EffectGroup& g, uint64_t off);
  Status parse_register(uint16_t num, uint8_t op, uint64_t off, int32_t& index);
  Status parse_frame_header(uint8_t op, uint64_t off, uint32_t& count);
  // Parses a frame body of `count` ops into g (keyframes).
  Status parse_keyframe_body(uint32_t count, uint64_t off, EffectGroup& g);
  Status parse_syscall(uint64_t off, EffectGroup& sys);
  Status check_range(uint64_t addr, uint64_t size, uint8_t op, uint64_t off);
  Error op_error(uint64_t off, const std::string& message) const;

  OpWindow& w_;
  const ArchDesc& arch_;
  const Uc1RegisterMap& regs_;
  StepAssembler& steps_;
  EffectGroup sys_scratch_;
  EffectGroup kf_scratch_;
  uint64_t frames_ = 0, extra_keyframes_ = 0, ignored_regs_ = 0;
};

}  // namespace ttd::fmt::ucir
