// The parse-and-encode half of a parallel index build (docs/design.md,
// "Parallel parse"): a TraceSink for one segment of a trace
// (formats/common/trace_segments.h) that does, from the segment's first
// step on, what IndexBuilder does on its two-thread path: encodes each
// chunk's step stream, gathers its summary and records the calls the live
// state must see (BuildEffectLog), chunk by chunk, into EncodedChunks that
// IndexBuilder::adopt_chunk takes in trace order. Runs on any thread; it
// shares nothing.
//
// Segments start at chunk starts. The state a chunk's encoding needs from
// before it is small: the thread table (fixed here: a thread not known at
// the segment's start is an error, the build then runs in order), whether
// each thread has stepped, and the attribute keys used so far. The encoder
// restarts at every chunk. Steps and effects go through ChunkStepRecorder,
// as IndexBuilder's do; here every call on the live state is recorded.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/attr_key_table.h"
#include "engine/build_effect_log.h"
#include "engine/byte_codec.h"
#include "engine/chunk_step_recorder.h"
#include "engine/chunk_summary_builder.h"
#include "engine/state_apply.h"
#include "engine/step_codec.h"
#include "formats/common/trace_segments.h"
#include "state/byte_order.h"  // store_le64

namespace ttd {

struct EncodedChunk {
  struct ThreadSteps {
    uint64_t steps = 0, first_eid = 0, last_eid = 0;
  };
  ByteBlock stream;
  std::unique_ptr<ChunkSummaryBuilder> summary;
  // The calls on the live state from the chunk's first step up to the
  // next chunk's first (its pc set), or to the trace's end.
  ByteBlock effects;
  uint32_t steps = 0;
  uint32_t first_tidx = 0;  // the first step's thread and pc: the first
  uint64_t first_pc = 0;    // chunk's keyframe is taken with the pc there
  std::vector<ThreadSteps> threads;  // by thread index
};

class SegmentEncoder final : public fmt::TraceSink, private ChunkStepRecorder<SegmentEncoder> {
 public:
  // `slots`: the index's threads at the segment's start; `stepped`: whether
  // they have stepped before it (so their pcs are live already).
  SegmentEncoder(const ArchDesc& arch, uint32_t chunk_steps, std::vector<ThreadSlot> slots, bool stepped,
                 const fmt::SegmentStart& start);

  void begin(const fmt::TraceInfo&) override {}
  void step(const fmt::StepInfo& s) override {
    // The common step, as IndexBuilder::step's.
    if (continue_run(s.tid, s.pc, s.size, s.kind)) [[likely]]
      return;
    step_slow(s);
  }
  void attr(std::string_view key, const fmt::AttrValue& v) override;
  AttrKey attr_key(std::string_view key) override { return attr_keys_.id(key); }
  void attr_u64(AttrKey key, uint64_t v) override { record_attr_u64(key, v); }
  void attr_u64s(const AttrKey* keys, const uint64_t* values, size_t n) override { record_attr_u64s(keys, values, n); }
  void reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) override;
  void reg_value(uint64_t tid, uint16_t reg, uint64_t value, uint32_t bytes) override;
  void reg_unknown(uint64_t tid, uint16_t reg) override;
  void mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> bytes) override;
  void mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) override;
  void mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) override;
  void mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) override;
  void mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) override;
  void mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) override;
  void thread_begin(uint64_t tid, uint64_t pid) override;
  void thread_end(uint64_t tid) override;
  void end() override;

  // Empty unless the segment could not be encoded here.
  const std::string& error() const { return error_; }
  // Whether the segment reached its end (step(end_eid), or end()).
  bool complete() const { return phase_ == Phase::Done && error_.empty(); }
  std::vector<EncodedChunk>& chunks() { return chunks_; }
  // Every attribute key used up to the segment's end, in order of first use.
  const std::vector<std::string>& attr_keys() const { return keys_; }

 private:
  friend struct ChunkStepRecorder<SegmentEncoder>;
  enum class Phase { Lead, Active, Done };
  // For ChunkStepRecorder: every call on the live state goes to the log;
  // the step counts are the open chunk's.
  template <class F>
  [[gnu::always_inline]] void live_call(F&& f) {
    f(log_);
  }
  void live_reg_value(uint32_t tidx, uint16_t reg, uint64_t value, uint32_t bytes) {
    uint8_t le[8];
    store_le64(le, value);
    log_.reg(tidx, reg, le, bytes);
  }
  void live_mem_read(uint64_t pid, uint64_t addr, uint32_t size, const uint8_t* value) {
    if (value) log_.mem_write(pid, addr, value, size);  // what the applier does with a read's value
  }
  EncodedChunk::ThreadSteps& thread_steps(uint32_t tidx) { return chunk_.threads[tidx]; }
  uint32_t attr_id(std::string_view key) { return attr_keys_.id(key); }

  void step_slow(const fmt::StepInfo& s);
  // The thread's index, or nullopt (and Done with an error) for a thread
  // the segment does not know.
  std::optional<uint32_t> thread_index(uint64_t tid);
  bool active() const { return phase_ == Phase::Active; }
  void open_chunk(uint32_t tidx, uint64_t pc);
  void close_chunk();

  const uint32_t chunk_steps_;
  const fmt::SegmentStart start_;
  std::vector<ThreadSlot> slots_;
  std::vector<std::string> keys_;
  AttrKeyTable attr_keys_{keys_};
  BuildEffectLog log_;
  std::vector<EncodedChunk> chunks_;
  EncodedChunk chunk_;  // the open chunk's fields other than its blobs
  std::string error_;

  Phase phase_ = Phase::Lead;
  bool chunk_open_ = false;
  uint64_t last_tid_ = ~0ull;
  uint32_t last_tidx_ = 0;
};

}  // namespace ttd
