#include "engine/chunk_steps.h"

namespace ttd {

Error corrupt_chunk(const Trace& t, size_t chunk) { return t.index().chunk_error(chunk); }

ChunkSteps::ChunkSteps(const Trace& t, DamagedSummary damaged) : trace_(t), index_(t.index()), damaged_(damaged) {}

Status ChunkSteps::load(size_t c) {
  corrupt_ = false;
  dec_.reset();
  chunk_ = c;
  if (c >= index_.chunk_count()) {
    corrupt_ = true;
    return corrupt_chunk(trace_, c);
  }
  const ChunkEntry ch = index_.chunk(c);
  if (damaged_ == DamagedSummary::Refuse && index_.summary(c)->corrupt) {
    corrupt_ = true;
    return corrupt_chunk(trace_, c);
  }
  if (buffered_ != c) {
    buffered_.reset();
    if (!index_.read_blob(ch.stream, buf_)) {
      corrupt_ = true;
      return corrupt_chunk(trace_, c);
    }
    buffered_ = c;
  }
  dec_.emplace(trace_.arch(), reinterpret_cast<const uint8_t*>(buf_.data()), buf_.size());
  next_eid_ = ch.first_eid;
  end_eid_ = next_eid_ + ch.steps;
  return {};
}

namespace {
// The stream blob's offset, for the error: a stream that passed its
// checksum but does not decode (a crafted file, a codec bug).
void note_malformed_stream(const IndexFile& index, size_t chunk, uint64_t eid) {
  index.note_failure(index.chunk(chunk).stream.offset, "step stream malformed at EID " + std::to_string(eid));
}
}  // namespace

bool ChunkSteps::next() {
  if (!dec_ || corrupt_ || next_eid_ >= end_eid_) return false;
  const auto& slots = index_.thread_slots();
  if (!dec_->next(step_.raw) || step_.raw.tidx >= slots.size()) {
    corrupt_ = true;
    note_malformed_stream(index_, chunk_, next_eid_);
    return false;
  }
  step_.eid = next_eid_++;
  step_.tidx = step_.raw.tidx;
  step_.tid = slots[step_.tidx].tid;
  step_.pid = slots[step_.tidx].pid;
  step_.pc = step_.raw.pc;
  step_.size = step_.raw.size;
  step_.kind = step_.raw.kind;
  return true;
}

bool ChunkSteps::effects(EffectVisitor& v) {
  if (!dec_ || corrupt_) return false;
  if (!dec_->effects(step_.raw, v, step_.pid)) {
    corrupt_ = true;
    note_malformed_stream(index_, chunk_, next_eid_ - 1);
  }
  return !corrupt_;
}

Status ChunkSteps::status() const {
  if (corrupt_) return corrupt_chunk(trace_, chunk_);
  return {};
}

bool ChunkSteps::attrs(std::vector<std::pair<uint32_t, fmt::AttrValue>>& out) const {
  out.clear();
  return dec_->attrs(step_.raw, out);
}

std::optional<uint32_t> ChunkSteps::attr_key(const std::string& name) const {
  const auto& keys = index_.meta().attr_keys;
  for (uint32_t i = 0; i < keys.size(); ++i)
    if (keys[i] == name) return i;
  return std::nullopt;
}

}  // namespace ttd
