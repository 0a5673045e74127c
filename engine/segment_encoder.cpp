#include "engine/segment_encoder.h"

#include "engine/byte_codec.h"
#include "engine/trace_text.h"
#include "state/byte_order.h"

namespace ttd {

SegmentEncoder::SegmentEncoder(const ArchDesc& arch, uint32_t chunk_steps, std::vector<ThreadSlot> slots, bool stepped,
                               const fmt::SegmentStart& start)
    : arch_(arch), chunk_steps_(chunk_steps), start_(start), slots_(std::move(slots)), enc_(arch),
      eid_(start.lead_eid) {
  lazy_.assign(slots_.size(), Lazy{0, false, stepped});
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

void SegmentEncoder::commit_run() {
  if (run_steps_ == 0) return;
  EncodedChunk::ThreadSteps& t = chunk_.threads[cur_tidx_];
  t.steps += run_steps_;
  t.last_eid = eid_ - 1;
  run_steps_ = 0;
}

void SegmentEncoder::finish_step() {
  if (!in_step_) return;
  if (cur_size_) lazy_[cur_tidx_] = {cur_pc_ + cur_size_, true, true};
  in_step_ = false;
}

void SegmentEncoder::open_chunk(uint32_t tidx, uint64_t pc) {
  flush_pcs();
  chunk_ = EncodedChunk{};
  chunk_.first_tidx = tidx;
  chunk_.first_pc = pc;
  chunk_.threads.assign(slots_.size(), {});
  enc_.reset();
  summary_ = std::make_unique<ChunkSummaryBuilder>();
  chunk_open_ = true;
}

// The chunk's stream and summary; its effects follow once the next
// chunk's first pc is recorded (or at the end).
void SegmentEncoder::close_chunk() {
  enc_.end_step();
  chunk_.stream = enc_.out().take();
  uint64_t steps = 0;
  for (const auto& t : chunk_.threads) steps += t.steps;
  chunk_.steps = uint32_t(steps);
  chunk_.summary = std::move(summary_);
  chunk_open_ = false;
}

void SegmentEncoder::step_slow(const fmt::StepInfo& s) {
  if (phase_ == Phase::Done) return;
  if (phase_ == Phase::Lead) {
    if (eid_ < start_.eid) {  // a lead-in step: the reader's, not ours
      ++eid_;
      return;
    }
    phase_ = Phase::Active;
  }
  commit_run();
  finish_step();
  const auto t = thread_index(s.tid);
  if (!t) return;
  const uint32_t tidx = *t;
  if (until_chunk_ == 0) {
    // IndexBuilder::step at a chunk start; the first chunk's start was
    // recorded by the segment before (or, for the trace's first, is the
    // builder's to make).
    if (chunk_open_) {
      close_chunk();
      flush_pcs();
      log_.position(tidx, s.pc);
      chunk_.effects = log_.take();
      chunks_.push_back(std::move(chunk_));
    }
    if (eid_ == start_.end_eid) {
      phase_ = Phase::Done;
      return;
    }
    open_chunk(tidx, s.pc);
    until_chunk_ = chunk_steps_;
  }
  --until_chunk_;
  EncodedChunk::ThreadSteps& ts = chunk_.threads[tidx];
  if (ts.steps == 0) ts.first_eid = eid_;
  ts.last_eid = eid_;
  ++ts.steps;
  cur_tidx_ = tidx;
  cur_tid_ = s.tid;
  cur_pc_ = s.pc;
  cur_size_ = s.size;
  cur_pid_ = slots_[tidx].pid;
  if (lazy_[tidx].stepped) {
    lazy_[tidx] = {s.pc, true, true};
  } else {
    log_.begin_step(tidx, s.pc, s.size);
    lazy_[tidx] = {s.pc, false, true};
  }
  enc_.begin_step(tidx, cur_pid_, s.pc, s.size, s.kind);
  summary_->pc(s.pc);
  summary_->thread(tidx);
  in_step_ = true;
  ++eid_;
}

void SegmentEncoder::attr(std::string_view key, const fmt::AttrValue& v) {
  if (phase_ == Phase::Lead) {
    // The lead-in's keys were used before our steps: they take their ids first.
    if (eid_ > start_.lead_eid) attr_keys_.id(key);
    return;
  }
  if (!in_step_ || !active()) return;
  if (const auto* text = std::get_if<std::string>(&v); text && !is_valid_utf8(*text)) {
    enc_.attr(attr_keys_.id(key), fmt::AttrValue(text_from_trace(*text)));
    return;
  }
  enc_.attr(attr_keys_.id(key), v);
}

void SegmentEncoder::reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) {
  if (!active() || reg >= arch_.regs.size()) return;
  const auto t = thread_index(tid);
  if (!t) return;
  if (in_step_) {
    enc_.reg(*t, reg, value);
    summary_->reg(reg);
  }
  if (reg == arch_.pc_index) flush_pc(*t);
  log_.reg(*t, reg, value.data(), uint32_t(value.size()));
}

void SegmentEncoder::reg_value(uint64_t tid, uint16_t reg, uint64_t value, uint32_t bytes) {
  if (!active() || reg >= arch_.regs.size()) return;
  const auto t = thread_index(tid);
  if (!t) return;
  if (in_step_) {
    enc_.reg_value(*t, reg, value, bytes);
    summary_->reg(reg);
  }
  if (reg == arch_.pc_index) flush_pc(*t);
  uint8_t le[8];
  store_le64(le, value);
  log_.reg(*t, reg, le, bytes);
}

void SegmentEncoder::reg_unknown(uint64_t tid, uint16_t reg) {
  if (!active() || reg >= arch_.regs.size()) return;
  const auto t = thread_index(tid);
  if (!t) return;
  if (in_step_) {
    enc_.reg_unknown(*t, reg);
    summary_->reg(reg);
  }
  if (reg == arch_.pc_index) flush_pc(*t);
  log_.reg_unknown(*t, reg);
}

void SegmentEncoder::mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> bytes) {
  if (!active()) return;
  if (in_step_) {
    enc_.mem_write(pid, addr, bytes);
    summary_->write(addr, bytes.size());
  }
  log_.mem_write(pid, addr, bytes.data(), bytes.size());
}

void SegmentEncoder::mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) {
  if (!active()) return;
  if (in_step_) {
    enc_.mem_read(pid, addr, size, bytes);
    summary_->read(addr, size);
  }
  if (bytes.size() == size && size) log_.mem_write(pid, addr, bytes.data(), size);
}

void SegmentEncoder::mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) {
  if (!active()) return;
  if (in_step_) {
    enc_.mem_unknown(pid, addr, size);
    summary_->write(addr, size);
  }
  log_.mem_unknown(pid, addr, size);
}

void SegmentEncoder::mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view raw_name) {
  if (!active()) return;
  std::string escaped;
  std::string_view name = raw_name;
  if (!is_valid_utf8(raw_name)) name = escaped = text_from_trace(raw_name);
  if (in_step_) {
    enc_.mem_map(pid, addr, size, prot, name);
    summary_->write(addr, size);
  }
  log_.mem_map(pid, addr, size, prot, name);
}

void SegmentEncoder::mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) {
  if (!active()) return;
  if (in_step_) {
    enc_.mem_unmap(pid, addr, size);
    summary_->write(addr, size);
  }
  log_.mem_unmap(pid, addr, size);
}

void SegmentEncoder::mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) {
  if (!active()) return;
  if (in_step_) enc_.mem_protect(pid, addr, size, prot);
  log_.mem_protect(pid, addr, size, prot);
}

void SegmentEncoder::thread_begin(uint64_t tid, uint64_t) {
  if (!active()) return;
  const auto t = thread_index(tid);
  if (!t) return;
  if (in_step_) enc_.thread_begin(*t);
  log_.thread_begin(*t);
}

void SegmentEncoder::thread_end(uint64_t tid) {
  if (!active()) return;
  for (uint32_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].tid == tid) {
      if (in_step_) enc_.thread_end(i);
      log_.thread_end(i);
      return;
    }
}

void SegmentEncoder::end() {
  if (phase_ == Phase::Lead && start_.eid == 0 && eid_ == 0) phase_ = Phase::Active;  // a trace without steps
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
