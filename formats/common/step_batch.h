// A run of plain instruction steps of one thread, handed to a sink in one
// call (BatchSink::steps) instead of one virtual call per step and per
// effect. Format-neutral: a reader fills it, a sink that takes batches
// (the index builder) consumes it; what does not fit (another kind of
// step, attributes, thread changes, maps, wide registers, reads with
// values) goes through the TraceSink calls, after the batch is handed
// over, so the order of calls is kept. Structure of arrays, reused: after
// warm-up filling it never allocates. docs/design.md, "Step batches".
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "formats/common/trace_sink.h"

namespace ttd::fmt {

enum class BatchEffectKind : uint8_t {
  RegValue,  // reg_value(tid, reg, value, size): a register of `size` (1 to 8) bytes, little-endian target
  MemRead,   // mem_read(pid, addr, size, {}): the value read is not in the trace
  MemWrite,  // mem_write(pid, addr, bytes): `size` bytes at `value` in StepBatch::bytes
};

struct BatchEffect {
  BatchEffectKind kind = BatchEffectKind::RegValue;
  uint16_t reg = 0;
  uint32_t size = 0;
  uint64_t addr = 0;
  uint64_t value = 0;  // RegValue: the register's value; MemWrite: offset of its bytes
};

struct BatchStep {
  uint64_t pc = 0;
  uint32_t size = 0;         // instruction size in bytes
  uint32_t effects_end = 0;  // this step's effects are [previous step's effects_end, effects_end)
};

class StepBatch {
 public:
  static constexpr size_t kSteps = 4096;  // a reader hands the batch over at this many steps

  uint64_t tid = 0, pid = 0;  // of every step in the batch

  std::span<const BatchStep> steps() const { return {steps_.data(), nsteps_}; }
  // The effects of the steps, in order (BatchStep::effects_end indexes them).
  const BatchEffect* effects() const { return effects_.data(); }
  size_t effect_count() const { return neffects_; }
  const uint8_t* bytes_of(const BatchEffect& e) const { return bytes_.data() + e.value; }
  bool empty() const { return nsteps_ == 0; }
  bool full() const { return nsteps_ >= kSteps; }
  void clear() { nsteps_ = neffects_ = bytes_used_ = 0; }

  // The arrays are written in place, not push_back'ed: room() makes space
  // for a step's effects once, and the writes below check nothing.
  // Filling them is per effect, on the hottest path of a build.
  void room(size_t effects) {
    if (effects_.size() - neffects_ < effects) [[unlikely]]
      effects_.resize(std::max<size_t>(2 * effects_.size(), neffects_ + effects + 1024));
  }
  void reg_value(uint16_t reg, uint64_t value, uint32_t size) {
    effects_[neffects_++] = {BatchEffectKind::RegValue, reg, size, 0, value};
  }
  void mem_read(uint64_t addr, uint32_t size) { effects_[neffects_++] = {BatchEffectKind::MemRead, 0, size, addr, 0}; }
  void mem_write(uint64_t addr, const uint8_t* data, uint32_t size) {
    if (bytes_.size() - bytes_used_ < size) [[unlikely]]
      bytes_.resize(std::max<size_t>(2 * bytes_.size(), bytes_used_ + size + 4096));
    if (size == 8)
      std::memcpy(bytes_.data() + bytes_used_, data, 8);  // the common write, without a library call
    else if (size)
      std::memcpy(bytes_.data() + bytes_used_, data, size);
    effects_[neffects_++] = {BatchEffectKind::MemWrite, 0, size, addr, bytes_used_};
    bytes_used_ += size;
  }
  // Where the open step's effects start, to take them back (a reader that
  // finds the step does not fit after all).
  struct Mark {
    size_t effects, bytes;
  };
  Mark mark() const { return {neffects_, bytes_used_}; }
  void rollback(Mark m) {
    neffects_ = m.effects;
    bytes_used_ = m.bytes;
  }
  // Ends a step whose effects end at `effects_end` (effects after it,
  // not yet in a step, stay open for the next ones).
  void end_step(uint64_t pc, uint32_t size, size_t effects_end) {
    if (nsteps_ == steps_.size()) [[unlikely]]
      steps_.resize(std::max<size_t>(2 * steps_.size(), 256));
    steps_[nsteps_++] = {pc, size, uint32_t(effects_end)};
  }
  void end_step(uint64_t pc, uint32_t size) { end_step(pc, size, neffects_); }
  // Where the ended steps' effects end: the open effects follow.
  size_t ended_effects() const { return nsteps_ ? steps_[nsteps_ - 1].effects_end : 0; }
  // Drops the effects from index `from` on.
  void truncate(size_t from) {
    bytes_used_ = bytes_at(from);
    neffects_ = from;
  }
  // After the sink took the ended steps: forgets them, keeping the open
  // effects (moved to the front).
  void drop_ended() {
    const size_t from = ended_effects(), b0 = bytes_at(from);
    const size_t n = neffects_ - from;
    for (size_t i = 0; i < n; ++i) {
      effects_[i] = effects_[from + i];
      if (effects_[i].kind == BatchEffectKind::MemWrite) effects_[i].value -= b0;
    }
    if (bytes_used_ > b0) std::memmove(bytes_.data(), bytes_.data() + b0, bytes_used_ - b0);
    bytes_used_ -= b0;
    neffects_ = n;
    nsteps_ = 0;
  }

 private:
  // Where the bytes of effect `i` and after start.
  size_t bytes_at(size_t i) const {
    for (; i < neffects_; ++i)
      if (effects_[i].kind == BatchEffectKind::MemWrite) return effects_[i].value;
    return bytes_used_;
  }
  std::vector<BatchStep> steps_;
  std::vector<BatchEffect> effects_;
  std::vector<uint8_t> bytes_;
  size_t nsteps_ = 0, neffects_ = 0, bytes_used_ = 0;
};

// A sink that takes batches besides the TraceSink calls (the index
// builder). A reader finds it with dynamic_cast, once per read; a sink
// that is not one gets the per-step calls as before.
class BatchSink {
 public:
  virtual ~BatchSink() = default;
  // The steps of b (not its open effects), as the per-step calls would
  // give them: step(), then each effect's call.
  virtual void steps(const StepBatch& b) = 0;
};

// The per-step calls a batch stands for, made on `sink` (for sinks that
// want them, and for tests).
inline void send_one_by_one(const StepBatch& b, TraceSink& sink) {
  size_t e = 0;
  for (const BatchStep& s : b.steps()) {
    sink.step(StepInfo{b.tid, b.pid, s.pc, s.size, StepKind::Instruction});
    for (; e < s.effects_end; ++e) {
      const BatchEffect& x = b.effects()[e];
      switch (x.kind) {
        case BatchEffectKind::RegValue: sink.reg_value(b.tid, x.reg, x.value, x.size); break;
        case BatchEffectKind::MemRead: sink.mem_read(b.pid, x.addr, x.size, {}); break;
        case BatchEffectKind::MemWrite: sink.mem_write(b.pid, x.addr, {b.bytes_of(x), x.size}); break;
      }
    }
  }
}

}  // namespace ttd::fmt
