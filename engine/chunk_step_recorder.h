// What both index builders do with the trace reader's steps and effects
// once the thread's index is known: IndexBuilder (engine/index_builder_impl.h,
// the one- and two-thread build) and SegmentEncoder
// (engine/segment_encoder.h, one segment of a parallel build). A step
// goes to the open chunk's step stream (StepEncoder), its summary
// (ChunkSummaryBuilder) and its thread's step counts; an effect goes to
// the stream and the summary while a step is open, and to the live state
// (a StateApplier, or a BuildEffectLog of the calls for another thread to
// make). A thread's pc is set twice per step (its address, then the
// address after it); it waits in `lazy` until the live state needs it.
//
// Chunk boundaries, the thread look-up and where closed chunks go stay
// the owner's. The owner derives from ChunkStepRecorder<Owner> (so that
// every call inlines into its TraceSink calls: they run once per step or
// effect) and provides:
//   template <class F> void live_call(F&& f);  // f(StateApplier&) or f(BuildEffectLog&)
//   void live_reg_value(uint32_t tidx, uint16_t reg, uint64_t value, uint32_t bytes);
//   void live_mem_read(uint64_t pid, uint64_t addr, uint32_t size, const uint8_t* value);
//   X& thread_steps(uint32_t tidx);            // X has steps, first_eid, last_eid
//   uint32_t attr_id(std::string_view key);
// reg_value and mem_read have hooks of their own: a BuildEffectLog records
// them as other calls (reg, mem_write), and IndexBuilder's explicit
// branches for them keep GCC's inlining of its hot path as it was (through
// live_call, the lambdas used up the unit's inlining budget and the
// common step lost its inlined push_back).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/chunk_summary_builder.h"
#include "engine/step_codec.h"
#include "engine/trace_text.h"
#include "formats/common/trace_sink.h"
#include "state/arch.h"

namespace ttd {

template <class Owner>
struct ChunkStepRecorder {
  // IndexBuilder gives its first summary here; SegmentEncoder makes one at
  // each chunk start.
  explicit ChunkStepRecorder(std::unique_ptr<ChunkSummaryBuilder> first_summary = nullptr)
      : summary(std::move(first_summary)) {}

  const ArchDesc* arch = nullptr;
  // In place rather than behind a pointer: used on every effect.
  std::optional<StepEncoder> enc;
  std::unique_ptr<ChunkSummaryBuilder> summary;  // the open chunk's

  // In the order IndexBuilder had them (the common step writes run_steps
  // and cur_pc together).
  bool in_step = false;
  uint64_t next_eid = 0;     // of the next step: the steps seen so far
  uint64_t cur_tid = ~0ull;  // of the open step
  uint32_t cur_tidx = 0;
  // Steps of the open step's thread since its counts were last brought
  // up to date (a run of one thread counts them here, not in
  // thread_steps()).
  uint64_t run_steps = 0;
  uint64_t cur_pc = 0;
  uint32_t cur_size = 0;
  uint64_t cur_pid = 0;
  uint32_t until_chunk = 0;  // steps left before the next chunk starts

  // Each step sets its thread's pc twice (its address, then the address
  // after it); the live state only needs it at keyframes and before an
  // effect on the pc itself, so the value waits here until then.
  struct LazyPc {
    uint64_t pc = 0;
    bool due = false;      // pc not yet in the live state
    bool stepped = false;  // a step of the thread has created it in the live state
  };
  std::vector<LazyPc> lazy;  // by thread index

  void commit_run() {
    if (run_steps == 0) return;
    auto& ti = owner().thread_steps(cur_tidx);
    ti.steps += run_steps;
    ti.last_eid = next_eid - 1;
    run_steps = 0;
  }
  void flush_pc(uint32_t tidx) {
    if (!lazy[tidx].due) return;
    lazy[tidx].due = false;
    owner().live_call([&](auto& a) { a.position(tidx, lazy[tidx].pc); });
  }
  void flush_pcs() {
    for (uint32_t t = 0; t < lazy.size(); ++t) flush_pc(t);
  }
  // The live state at a chunk's first step: every pc that waits, then the
  // step's thread at the step's pc (where the chunk's keyframe is taken).
  void position_at_chunk_start(uint32_t tidx, uint64_t pc) {
    flush_pcs();
    owner().live_call([&](auto& a) { a.position(tidx, pc); });
  }

  // The common step (a TraceSink call's and a batch's): the thread of
  // the step before, inside a chunk. What start_step does, less what
  // cannot change: the thread's index, process and chunk thread list, and
  // its lazy pc already counts as stepped (finish_step's pc is overwritten
  // by this step's at once). False: the owner's general path must take
  // the step.
  [[gnu::always_inline]] bool continue_run(uint64_t tid, uint64_t pc, uint32_t size, fmt::StepKind kind) {
    if (!(in_step && tid == cur_tid && until_chunk != 0)) [[unlikely]]
      return false;
    --until_chunk;
    LazyPc& lz = lazy[cur_tidx];
    lz.pc = pc;
    lz.due = true;
    ++run_steps;
    cur_pc = pc;
    cur_size = size;
    enc->begin_step(cur_tidx, cur_pid, pc, size, kind);
    summary->pc(pc);
    ++next_eid;
    return true;
  }

  // The general path's step, once the owner has ended the step before
  // (commit_run, finish_step), found the thread's index and process, and
  // opened a chunk if one starts here.
  [[gnu::always_inline]] void start_step(uint32_t tidx, uint64_t pid, const fmt::StepInfo& s) {
    --until_chunk;
    auto& ti = owner().thread_steps(tidx);
    if (ti.steps == 0) ti.first_eid = next_eid;
    ti.last_eid = next_eid;
    ++ti.steps;
    cur_tidx = tidx;
    cur_tid = s.tid;
    cur_pc = s.pc;
    cur_size = s.size;
    cur_pid = pid;
    if (lazy[tidx].stepped) {  // StateApplier::begin_step, deferred
      lazy[tidx] = {s.pc, true, true};
    } else {
      owner().live_call([&](auto& a) { a.begin_step(tidx, s.pc, s.size); });
      lazy[tidx] = {s.pc, false, true};
    }
    enc->begin_step(tidx, cur_pid, s.pc, s.size, s.kind);
    summary->pc(s.pc);
    summary->thread(tidx);
    in_step = true;
    ++next_eid;
  }

  // What StateApplier::end_step does, deferred.
  void finish_step() {
    if (!in_step) return;
    if (cur_size) lazy[cur_tidx] = {cur_pc + cur_size, true, true};
    in_step = false;
  }

  // The effects' work; the thread index is the caller's, and so is the
  // check that a register number is below the architecture's count.
  [[gnu::always_inline]] void record_attr(std::string_view key, const fmt::AttrValue& v) {
    if (!in_step) return;
    if (const auto* text = std::get_if<std::string>(&v); text && !is_valid_utf8(*text)) {
      enc->attr(owner().attr_id(key), fmt::AttrValue(text_from_trace(*text)));
      return;
    }
    enc->attr(owner().attr_id(key), v);
  }
  [[gnu::always_inline]] void record_attr_u64(uint32_t key, uint64_t v) {
    if (in_step) enc->attr_u64(key, v);
  }
  [[gnu::always_inline]] void record_attr_u64s(const uint32_t* keys, const uint64_t* values, size_t n) {
    if (in_step) enc->attr_u64s(keys, values, n);
  }
  [[gnu::always_inline]] void record_reg(uint32_t tidx, uint16_t reg, std::span<const uint8_t> value) {
    if (in_step) {
      enc->reg(tidx, reg, value);
      summary->reg(reg);
    }
    if (reg == arch->pc_index) flush_pc(tidx);
    owner().live_call([&](auto& a) { a.reg(tidx, reg, value.data(), uint32_t(value.size())); });
  }
  [[gnu::always_inline]] void record_reg_value(uint32_t tidx, uint16_t reg, uint64_t value, uint32_t bytes) {
    // reg() without the bytes: the encoder and the register file take the
    // integer as it is.
    if (in_step) {
      enc->reg_value(tidx, reg, value, bytes);
      summary->reg(reg);
    }
    if (reg == arch->pc_index) flush_pc(tidx);
    owner().live_reg_value(tidx, reg, value, bytes);
  }
  [[gnu::always_inline]] void record_reg_unknown(uint32_t tidx, uint16_t reg) {
    if (in_step) {
      enc->reg_unknown(tidx, reg);
      summary->reg(reg);
    }
    if (reg == arch->pc_index) flush_pc(tidx);
    owner().live_call([&](auto& a) { a.reg_unknown(tidx, reg); });
  }
  [[gnu::always_inline]] void record_mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> bytes) {
    if (in_step) {
      enc->mem_write(pid, addr, bytes);
      summary->write(addr, bytes.size());
    }
    owner().live_call([&](auto& a) { a.mem_write(pid, addr, bytes.data(), bytes.size()); });
  }
  [[gnu::always_inline]] void record_mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) {
    if (in_step) {
      enc->mem_read(pid, addr, size, bytes);
      summary->read(addr, size);
    }
    owner().live_mem_read(pid, addr, size, bytes.size() == size && size ? bytes.data() : nullptr);
  }
  [[gnu::always_inline]] void record_mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) {
    if (in_step) {
      enc->mem_unknown(pid, addr, size);
      summary->write(addr, size);
    }
    owner().live_call([&](auto& a) { a.mem_unknown(pid, addr, size); });
  }
  [[gnu::always_inline]] void record_mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot,
                                             std::string_view raw_name) {
    std::string escaped;
    std::string_view name = raw_name;
    if (!is_valid_utf8(raw_name)) name = escaped = text_from_trace(raw_name);
    if (in_step) {
      enc->mem_map(pid, addr, size, prot, name);
      summary->write(addr, size);
    }
    owner().live_call([&](auto& a) { a.mem_map(pid, addr, size, prot, name); });
  }
  [[gnu::always_inline]] void record_mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) {
    if (in_step) {
      enc->mem_unmap(pid, addr, size);
      summary->write(addr, size);
    }
    owner().live_call([&](auto& a) { a.mem_unmap(pid, addr, size); });
  }
  [[gnu::always_inline]] void record_mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) {
    if (in_step) enc->mem_protect(pid, addr, size, prot);
    owner().live_call([&](auto& a) { a.mem_protect(pid, addr, size, prot); });
  }
  [[gnu::always_inline]] void record_thread_begin(uint32_t tidx) {
    if (in_step) enc->thread_begin(tidx);
    owner().live_call([&](auto& a) { a.thread_begin(tidx); });
  }
  [[gnu::always_inline]] void record_thread_end(uint32_t tidx) {
    if (in_step) enc->thread_end(tidx);
    owner().live_call([&](auto& a) { a.thread_end(tidx); });
  }

 private:
  Owner& owner() { return static_cast<Owner&>(*this); }
};

}  // namespace ttd
