#include "engine/query/chunk_reader.h"

namespace ttd::query {

Error corrupt_chunk(const Trace& t, size_t chunk) {
  return t.index().chunk_error(chunk);
}

ChunkReader::ChunkReader(const Trace& t) : trace_(t), index_(t.index()) {}

Status ChunkReader::load(size_t c) {
  corrupt_ = false;
  dec_.reset();
  chunk_ = c;
  const ChunkEntry ch = c < index_.chunk_count() ? index_.chunk(c) : ChunkEntry{};
  // A chunk whose summary is unreadable was not skipped by its summary:
  // report it rather than decode it as if the skip decision were sound.
  if (c >= index_.chunk_count() || index_.summary(c)->corrupt || !index_.read_blob(ch.stream, buf_)) {
    corrupt_ = true;
    return corrupt_chunk(trace_, c);
  }
  dec_.emplace(trace_.arch(), reinterpret_cast<const uint8_t*>(buf_.data()), buf_.size());
  next_eid_ = ch.first_eid;
  end_eid_ = next_eid_ + ch.steps;
  return {};
}

bool ChunkReader::next() {
  if (!dec_ || corrupt_ || next_eid_ >= end_eid_) return false;
  const auto& slots = index_.thread_slots();
  if (!dec_->next(step_.raw) || step_.raw.tidx >= slots.size()) {
    corrupt_ = true;
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

bool ChunkReader::effects(EffectVisitor& v) {
  if (!dec_ || corrupt_) return false;
  if (!dec_->effects(step_.raw, v, step_.pid)) corrupt_ = true;
  return !corrupt_;
}

Status ChunkReader::status() const {
  if (corrupt_) return corrupt_chunk(trace_, chunk_);
  return {};
}

bool ChunkReader::attrs(std::vector<std::pair<uint32_t, fmt::AttrValue>>& out) const {
  out.clear();
  return dec_->attrs(step_.raw, out);
}

std::optional<uint32_t> ChunkReader::attr_key(const std::string& name) const {
  const auto& keys = index_.meta().attr_keys;
  for (uint32_t i = 0; i < keys.size(); ++i)
    if (keys[i] == name) return i;
  return std::nullopt;
}

}  // namespace ttd::query
