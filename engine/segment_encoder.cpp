#include "engine/segment_encoder.h"

#include "engine/byte_codec.h"

namespace ttd {

SegmentEncoder::SegmentEncoder(const ArchDesc& arch, uint32_t chunk_steps, std::vector<ThreadSlot> slots, bool stepped,
                               const fmt::SegmentStart& start)
    : chunk_steps_(chunk_steps), start_(start), slots_(std::move(slots)) {
  this->arch = &arch;
  enc.emplace(arch);
  next_eid = start.lead_eid;
  lazy.assign(slots_.size(), LazyPc{0, false, stepped});
  for (const std::string& k : start.attr_keys) attr_keys_.id(k);
}

std::optional<uint32_t> SegmentEncoder::thread_index(uint64_t tid) {
  if (tid == last_tid_) [[likely]]
    return last_tidx_;
  for (uint32_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].tid == tid) {
      last_tid_ = tid;
      return last_tidx_ = i;
    }
  error_ = "thread " + std::to_string(tid) + " is not one of the threads known at the segment's start";
  phase_ = Phase::Done;
  return std::nullopt;
}

void SegmentEncoder::open_chunk(uint32_t tidx, uint64_t pc) {
  flush_pcs();
  chunk_ = EncodedChunk{};
  chunk_.first_tidx = tidx;
  chunk_.first_pc = pc;
  chunk_.threads.assign(slots_.size(), {});
  enc->reset();
  summary = std::make_unique<ChunkSummaryBuilder>();
  chunk_open_ = true;
}

// The chunk's stream and summary; its effects follow once the next
// chunk's first pc is recorded (or at the end).
void SegmentEncoder::close_chunk() {
  enc->end_step();
  chunk_.stream = enc->out().take();
  uint64_t steps = 0;
  for (const auto& t : chunk_.threads) steps += t.steps;
  chunk_.steps = uint32_t(steps);
  chunk_.summary = std::move(summary);
  chunk_open_ = false;
}

void SegmentEncoder::step_slow(const fmt::StepInfo& s) {
  if (phase_ == Phase::Done) return;
  if (phase_ == Phase::Lead) {
    if (next_eid < start_.eid) {  // a lead-in step: the reader's, not ours
      ++next_eid;
      return;
    }
    phase_ = Phase::Active;
  }
  commit_run();
  finish_step();
  const auto t = thread_index(s.tid);
  if (!t) return;
  const uint32_t tidx = *t;
  if (until_chunk == 0) {
    // IndexBuilder::step at a chunk start; the first chunk's start was
    // recorded by the segment before (or, for the trace's first, is the
    // builder's to make).
    if (chunk_open_) {
      close_chunk();
      position_at_chunk_start(tidx, s.pc);
      chunk_.effects = log_.take();
      chunks_.push_back(std::move(chunk_));
    }
    if (next_eid == start_.end_eid) {
      phase_ = Phase::Done;
      return;
    }
    open_chunk(tidx, s.pc);
    until_chunk = chunk_steps_;
  }
  start_step(tidx, slots_[tidx].pid, s);
}

void SegmentEncoder::attr(std::string_view key, const fmt::AttrValue& v) {
  if (phase_ == Phase::Lead) {
    // The lead-in's keys were used before our steps: they take their ids first.
    if (next_eid > start_.lead_eid) attr_keys_.id(key);
    return;
  }
  if (active()) record_attr(key, v);
}

void SegmentEncoder::reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) {
  if (!active() || reg >= arch->regs.size()) return;
  const auto t = thread_index(tid);
  if (!t) return;
  record_reg(*t, reg, value);
}

void SegmentEncoder::reg_value(uint64_t tid, uint16_t reg, uint64_t value, uint32_t bytes) {
  if (!active() || reg >= arch->regs.size()) return;
  const auto t = thread_index(tid);
  if (!t) return;
  record_reg_value(*t, reg, value, bytes);
}

void SegmentEncoder::reg_unknown(uint64_t tid, uint16_t reg) {
  if (!active() || reg >= arch->regs.size()) return;
  const auto t = thread_index(tid);
  if (!t) return;
  record_reg_unknown(*t, reg);
}

void SegmentEncoder::mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> bytes) {
  if (active()) record_mem_write(pid, addr, bytes);
}

void SegmentEncoder::mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) {
  if (active()) record_mem_read(pid, addr, size, bytes);
}

void SegmentEncoder::mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) {
  if (active()) record_mem_unknown(pid, addr, size);
}

void SegmentEncoder::mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view raw_name) {
  if (active()) record_mem_map(pid, addr, size, prot, raw_name);
}

void SegmentEncoder::mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) {
  if (active()) record_mem_unmap(pid, addr, size);
}

void SegmentEncoder::mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) {
  if (active()) record_mem_protect(pid, addr, size, prot);
}

void SegmentEncoder::thread_begin(uint64_t tid, uint64_t) {
  if (!active()) return;
  const auto t = thread_index(tid);
  if (!t) return;
  record_thread_begin(*t);
}

void SegmentEncoder::thread_end(uint64_t tid) {
  if (!active()) return;
  for (uint32_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].tid == tid) {
      record_thread_end(i);
      return;
    }
}

void SegmentEncoder::end() {
  if (phase_ == Phase::Lead && start_.eid == 0 && next_eid == 0) phase_ = Phase::Active;  // a trace without steps
  if (!active()) {
    if (error_.empty()) error_ = "the segment ended before its first step";
    phase_ = Phase::Done;
    return;
  }
  commit_run();
  finish_step();
  if (chunk_open_) {
    close_chunk();
    chunk_.effects = log_.take();
    chunks_.push_back(std::move(chunk_));
  }
  phase_ = Phase::Done;
}

}  // namespace ttd
