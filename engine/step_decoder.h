// Reads a chunk's step stream (format: engine/step_format.h; overview:
// engine/step_codec.h): step headers, effects (to any EffectVisitor, or
// straight to a StateApplier in a seek's replay) and attributes. Any
// chunk decodes on its own from its first byte.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "engine/byte_codec.h"
#include "engine/effect_visitor.h"
#include "engine/step_chunk_history.h"
#include "engine/step_format.h"
#include "engine/step_pc_memo.h"
#include "engine/step_stream_source.h"
#include "formats/common/trace_sink.h"
#include "state/arch.h"

namespace ttd {

class StateApplier;
struct ThreadSlot;

struct DecodedStep {
  uint32_t tidx = 0;
  uint64_t pc = 0;
  uint32_t size = 0;
  fmt::StepKind kind = fmt::StepKind::Instruction;
  ByteReader attrs;    // empty when the step has none
  ByteReader effects;  // empty when the step has none
};

class StepDecoder {
 public:
  StepDecoder(const ArchDesc& arch, const uint8_t* data, size_t size);
  // Starts over on another chunk's stream, exactly as a fresh decoder
  // would, keeping its tables allocated (a seek decodes a chunk after
  // another; a fresh decoder zeroes and frees ~30 KB each time). Deferred
  // registers not flushed are dropped. With `more`, [data, data + size)
  // is the part of the stream at hand and `more` gives the rest as
  // next() gets near its end.
  void reset(const uint8_t* data, size_t size, StepStreamSource* more = nullptr);
  // Seek replay (engine/cursor.cpp): from now on, writes of registers of at
  // most 8 bytes other than `immediate` (the pc, which the replay also
  // sets per step) are not handed to the visitor as they are decoded; the
  // decoder notes which registers of which threads were written, and
  // flush_registers() hands each one's last value over once. The state
  // reached is the same: the last write of a register wins, and an unknown
  // marker goes to the visitor at once and cancels the deferred writes
  // before it. Flush before reset() and before the state is read.
  void defer_registers(uint16_t immediate);
  void flush_registers(EffectVisitor& v);
  // Decodes the next step's header; false at the end or on corrupt data
  // (then ok() is false).
  bool next(DecodedStep& s);
  bool ok() const { return ok_; }
  // Seek replay (engine/cursor.cpp): applies `s` (the step next() gave
  // last) and the steps after it, `n` in all, as a replay does step by
  // step: begin_step() for a step of size 0, effects(), end_step(). After
  // each applied step the next header is read into `s`, but not after the
  // last one when `read_after_last` is false (the end of the chunk).
  // `done` counts the steps applied and keeps the last one's thread. False
  // on corrupt data (a bad step, or a thread index not below slots.size()).
  struct ReplayDone {
    uint64_t steps = 0;
    uint32_t last_tidx = 0;
  };
  bool replay(DecodedStep& s, uint64_t n, bool read_after_last, StateApplier& a,
              const std::vector<ThreadSlot>& slots, ReplayDone& done);
  // Decodes a step's effects (must be called for every step, in order,
  // when register values are needed: register deltas depend on history).
  // Memory bytes handed to v stay valid as long as this decoder and its
  // input do.
  bool effects(const DecodedStep& s, EffectVisitor& v, uint64_t step_pid);
  // Decodes the attributes of the step last returned by next() into
  // (key id, value) pairs. Unsigned values may be stored relative to the
  // chunk's earlier steps; next() keeps that history, so skipping attrs()
  // for some steps is fine.
  bool attrs(const DecodedStep& s, std::vector<std::pair<uint32_t, fmt::AttrValue>>& out) const;

 private:
  const ArchDesc* arch_;
  ByteReader in_;
  // Bit n: register n (below kShortRegs) exists and has at most 8 bytes,
  // as a short register effect needs (one test per effect, not two loads).
  uint64_t short_regs_ok_ = 0;
  // A stream given in part (reset's `more`): next() asks for more bytes
  // once it is within kRefillSlack bytes of the end at hand (past
  // refill_at_; UINTPTR_MAX when the whole stream is there), so a step's
  // header and short register effects are always whole; a longer effects
  // or attributes block asks for its own length.
  static constexpr size_t kRefillSlack = 256;
  StepStreamSource* more_ = nullptr;
  const uint8_t* base_ = nullptr;
  uintptr_t refill_at_ = UINTPTR_MAX;
  bool refill(size_t need);
  void note_available(size_t avail);
  // next()'s body, inlined into replay() (a call of next() from there is
  // not: the engine library is position-independent, so GCC keeps it
  // interposable).
  [[gnu::always_inline]] inline bool next_step(DecodedStep& s);
  bool resolve_u64_attrs(ByteReader r);
  // effects() and its parts for any visitor: EffectVisitor (virtual calls)
  // or StateApplier (final: the replay's calls inline). In step_codec.cpp.
  template <class V>
  bool effects_of(const DecodedStep& s, V& v, uint64_t step_pid);
  template <class V>
  void reg_delta(ByteReader& r, uint32_t tidx, uint16_t reg, V& v, bool from_prior = false);
  template <class V>
  bool access(uint8_t tag, ByteReader& r, V& v, uint64_t pid);
  // Room for the bytes of a value stored as a varint, never moved (blocks
  // are added, not grown), so pointers handed out stay valid.
  uint8_t* value_room(size_t n);

  // Registers written since the last flush, per thread (defer_registers).
  uint64_t* deferred_mask(uint32_t tidx) {
    if (tidx == deferred_tidx_) [[likely]]
      return deferred_[deferred_at_].second.data();
    return other_deferred_mask(tidx);
  }
  uint64_t* other_deferred_mask(uint32_t tidx);

  RegisterHistory history_;
  AccessEnds ends_;
  StepPcMemo memo_;
  bool defer_ = false;
  uint16_t immediate_reg_ = 0;
  std::vector<std::pair<uint32_t, std::array<uint64_t, 4>>> deferred_;
  size_t deferred_at_ = 0;
  uint32_t deferred_tidx_ = ~0u;  // deferred_[deferred_at_]'s thread, found without a search
  std::vector<std::unique_ptr<uint8_t[]>> value_blocks_;
  size_t value_used_ = 0;
  std::array<uint64_t, kMaxDeltaAttrKeys> attr_last_{};  // per attribute key: its last unsigned value
  std::vector<uint64_t> step_u64_;   // the unsigned attribute values of the current step
  bool ok_ = true;
  uint32_t prev_tidx_ = 0;
  uint64_t prev_next_pc_ = 0;
  uint32_t prev_size_ = 0;
  uint64_t prev_addr_ = 0;
};

}  // namespace ttd
