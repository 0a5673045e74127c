// Parses the decompressed UCIR op stream (frames of little-endian ops, as
// usercorn's ops.go packs them) straight from the OpWindow with raw
// pointer reads, feeding effects and steps to a StepAssembler. No
// allocation per op once the effect groups have grown. Internally a
// failing step returns false and leaves its Error in error_, which keeps
// the per-op path free of Status objects.
#pragma once
#include <functional>
#include <optional>
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
  // With `to_the_end` false the window holds a segment's ops, not the
  // stream's end (ucir_segments.h): its end finishes nothing.
  Status run(const Progress& progress, bool to_the_end = true);
  // Called when the read ends early at a cut-short tail (before the sink's
  // end()), with the file offset where the whole chunks end.
  void on_cut(std::function<void(uint64_t)> f) { on_cut_ = std::move(f); }
  // Called at the clean end of the stream, before the last step goes out.
  void on_end(std::function<void()> f) { on_end_ = std::move(f); }

  uint64_t frames() const { return frames_; }
  uint64_t extra_keyframes() const { return extra_keyframes_; }
  uint64_t thread_keyframes() const { return thread_keyframes_; }
  uint64_t ignored_registers() const { return ignored_regs_; }

 private:
  Status run_ops(const Progress& progress, bool to_the_end);
  // Ensures n bytes of the op at `off` are in the window.
  bool need(size_t n, uint8_t op, uint64_t off) { return w_.avail() >= n || need_slow(n, op, off); }
  bool need_slow(size_t n, uint8_t op, uint64_t off);
  // Parses one op that can appear inside a frame, keyframe or syscall
  // (everything but FRAME/KEYFRAME/STEP/SYSCALL) into g.
  bool parse_effect(uint8_t op, EffectGroup& g, uint64_t off);
  bool parse_register(uint16_t num, uint8_t op, uint64_t off, int32_t& index) {
    index = regs_.index_of(num);
    return index >= 0 || register_miss(num, op, off, index);
  }
  bool register_miss(uint16_t num, uint8_t op, uint64_t off, int32_t index);
  bool parse_frame_header(uint8_t op, uint64_t off, uint32_t& count, uint64_t& pid);
  // Parses a keyframe body of `count` ops into g. In a thread keyframe
  // OP_JMP is the thread's pc (kEffectThreadPc) and OP_EXIT means nothing.
  bool parse_keyframe_body(uint32_t count, uint64_t off, EffectGroup& g, bool thread_keyframe = false);
  // A frame's pid field names its thread (ttd's extension): checks it and
  // returns the thread id, or 0 after fail().
  uint64_t thread_of(uint8_t op, uint64_t pid, uint64_t off);
  bool parse_syscall(uint64_t off, EffectGroup& sys);
  bool check_range(uint64_t addr, uint64_t size, uint8_t op, uint64_t off) {
    return size == 0 || addr + (size - 1) >= addr || range_error(size, op, off);
  }
  bool range_error(uint64_t size, uint8_t op, uint64_t off);
  bool fill_error(const Status& s);
  bool fail(uint64_t off, const std::string& message);
  Status take_error();
  // The op stream ends inside an op, a frame or a syscall (the file ends
  // there, or inside its last chunk: ChunkSource::cut_at): no error, the
  // read ends at the last whole step (finish_cut). False (an error) when
  // reading a segment (run without to_the_end).
  bool stream_cut();
  Status finish_cut();

  OpWindow& w_;
  const ArchDesc& arch_;
  const Uc1RegisterMap& regs_;
  StepAssembler& steps_;
  EffectGroup sys_scratch_;
  EffectGroup kf_scratch_;
  uint64_t frames_ = 0, extra_keyframes_ = 0, thread_keyframes_ = 0, ignored_regs_ = 0;
  std::optional<Error> error_;
  std::optional<uint64_t> cut_at_;  // file offset where the whole data ends
  bool salvage_tail_ = true;
  std::function<void(uint64_t)> on_cut_;
  std::function<void()> on_end_;
};

}  // namespace ttd::fmt::ucir
