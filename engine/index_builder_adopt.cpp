// IndexBuilder's side of the parallel parse: chunks encoded on other
// threads (engine/segment_encoder.h) taken in order, in place of the
// step() calls that would have made them.
#include "engine/index_builder_impl.h"
#include "engine/segment_encoder.h"

namespace ttd {

const ArchDesc* IndexBuilder::arch() const { return impl_->arch; }
uint32_t IndexBuilder::chunk_steps() const { return impl_->chunk_steps; }
std::vector<ThreadSlot> IndexBuilder::threads() const { return impl_->slots; }

bool IndexBuilder::adopt_attr_keys(const std::vector<std::string>& keys) {
  auto& mine = impl_->meta.attr_keys;
  const size_t common = std::min(mine.size(), keys.size());
  if (!std::equal(mine.begin(), mine.begin() + ptrdiff_t(common), keys.begin())) return false;
  // The builder takes no attributes itself after this: its own key table
  // is not brought up to date.
  if (keys.size() > mine.size()) mine = keys;
  return true;
}

void IndexBuilder::adopt_chunk(EncodedChunk&& c) {
  auto& I = *impl_;
  // What step() does at the chunk's first step, up to the encoding.
  if (I.chunks.empty()) {
    // The trace's first chunk: its keyframe is taken here, with the pc of
    // its first step (and the replay thread may start).
    I.position_at_chunk_start(c.first_tidx, c.first_pc);
  } else if (I.deferred) {
    I.send_job(true);  // the chunk before, with its effects up to this chunk's start
  }
  I.open_chunk();
  if (I.deferred) {
    I.job.effects = std::move(c.effects);
    I.job.stream = std::move(c.stream);
    I.job.summary = std::move(c.summary);
    I.job_held = true;
    I.job_adopted = true;
  } else {
    // One thread (no replay thread could start): the effects now, then
    // what close_chunk puts.
    if (!BuildEffectLog::replay(c.effects.bytes.get(), c.effects.size, *I.applier) && I.write_error.empty())
      I.write_error = "internal error: an encoded chunk's effect log does not read back";
    I.chunk_tickets.back().stream = I.blobs->put(std::move(c.stream), BlobKind::Steps);
    c.summary->take(I.closed_summary);
    I.add_summary(I.closed_summary);
  }
  I.chunk.steps = c.steps;
  I.chunks.push_back(I.chunk);
  I.chunk_open = false;
  I.next_eid += c.steps;
  for (size_t t = 0; t < c.threads.size() && t < I.meta.threads.size(); ++t) {
    const EncodedChunk::ThreadSteps& d = c.threads[t];
    if (d.steps == 0) continue;
    ThreadInfo& ti = I.meta.threads[t];
    if (ti.steps == 0) ti.first_eid = d.first_eid;
    ti.last_eid = d.last_eid;
    ti.steps += d.steps;
  }
}

}  // namespace ttd
