#include "engine/step_stream.h"

#include "engine/chunk_steps.h"

namespace ttd {

StepStream::StepStream(const Trace& t) : chunks_(std::make_unique<ChunkSteps>(t)) {}

StepStream::~StepStream() = default;

bool StepStream::next() {
  if (!failed_) return false;
  for (;;) {
    if (chunk_ && chunks_->next()) break;
    if (chunk_ && !chunks_->status()) return false;  // corrupt data: status() says where
    size_t c = chunk_ ? *chunk_ + 1 : 0;
    if (c >= chunks_->chunk_count()) return false;
    chunk_ = c;
    if (Status s = chunks_->load(c); !s) {
      failed_ = s;
      return false;
    }
  }
  const ChunkStep& s = chunks_->step();
  step_ = StreamStep{s.eid, s.tidx, s.tid, s.pid, s.pc, s.size, s.kind};
  return true;
}

bool StepStream::effects(EffectVisitor& v) { return chunk_ && failed_ && chunks_->effects(v); }

bool StepStream::attrs(std::vector<std::pair<uint32_t, fmt::AttrValue>>& out) const {
  return chunk_ && failed_ && chunks_->attrs(out);
}

std::optional<uint32_t> StepStream::attr_key(const std::string& name) const { return chunks_->attr_key(name); }

Status StepStream::status() const { return failed_ ? chunks_->status() : failed_; }

}  // namespace ttd
