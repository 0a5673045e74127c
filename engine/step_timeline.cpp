#include "engine/step_timeline.h"

#include "engine/chunk_steps.h"
#include "engine/index_file.h"

namespace ttd {

bool TimelineStep::is_code() const {
  auto k = fmt::StepKind(kind);
  return k == fmt::StepKind::Instruction || k == fmt::StepKind::Syscall;
}

StepTimeline::StepTimeline(const Trace& trace, size_t cached_chunks) : trace_(trace), capacity_(cached_chunks) {}

std::optional<uint32_t> StepTimeline::thread_index(uint64_t tid) const {
  const auto& slots = trace_.index().thread_slots();
  for (uint32_t i = 0; i < slots.size(); ++i)
    if (slots[i].tid == tid) return i;
  return std::nullopt;
}

uint64_t StepTimeline::thread_id(uint32_t tidx) const {
  const auto& slots = trace_.index().thread_slots();
  return tidx < slots.size() ? slots[tidx].tid : 0;
}

const std::vector<TimelineStep>* StepTimeline::chunk(size_t c) {
  if (auto it = cache_.find(c); it != cache_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second.second);
    return &it->second.first;
  }
  if (c >= trace_.index().chunk_count()) return nullptr;
  // Headers only, through the one chunk decoder; effects are skipped.
  ChunkSteps reader(trace_, DamagedSummary::Decode);
  if (!reader.load(c)) return nullptr;
  std::vector<TimelineStep> steps;
  steps.reserve(reader.chunk(c).steps);
  while (reader.next()) steps.push_back({reader.step().pc, reader.step().tidx, uint8_t(reader.step().kind)});
  if (!reader.status() || steps.size() != reader.chunk(c).steps) return nullptr;
  if (cache_.size() >= capacity_ && !lru_.empty()) {
    cache_.erase(lru_.back());
    lru_.pop_back();
  }
  lru_.push_front(c);
  auto& slot = cache_[c];
  slot.first = std::move(steps);
  slot.second = lru_.begin();
  return &slot.first;
}

ScanEnd StepTimeline::forward(uint64_t from, const Visitor& fn, const std::function<bool()>& interrupted,
                              std::optional<uint32_t> only_thread) {
  const IndexFile& idx = trace_.index();
  uint64_t count = idx.meta().step_count;
  if (from >= count) return ScanEnd::Exhausted;
  for (size_t c = idx.chunk_of(from); c < idx.chunk_count(); ++c) {
    if (interrupted && interrupted()) return ScanEnd::Interrupted;
    if (only_thread && !idx.summary(c)->has_thread(*only_thread)) continue;
    const auto* steps = chunk(c);
    if (!steps) return ScanEnd::Corrupt;
    uint64_t first = idx.chunk(c).first_eid;
    for (size_t i = from > first ? size_t(from - first) : 0; i < steps->size(); ++i)
      if (!fn(first + i, (*steps)[i])) return ScanEnd::Stopped;
  }
  return ScanEnd::Exhausted;
}

ScanEnd StepTimeline::backward(uint64_t before, const Visitor& fn, const std::function<bool()>& interrupted,
                               std::optional<uint32_t> only_thread) {
  const IndexFile& idx = trace_.index();
  if (before == 0 || idx.chunk_count() == 0) return ScanEnd::Exhausted;
  for (size_t c = idx.chunk_of(before - 1) + 1; c-- > 0;) {
    if (interrupted && interrupted()) return ScanEnd::Interrupted;
    if (only_thread && !idx.summary(c)->has_thread(*only_thread)) continue;
    const auto* steps = chunk(c);
    if (!steps) return ScanEnd::Corrupt;
    uint64_t first = idx.chunk(c).first_eid;
    size_t end = std::min<uint64_t>(steps->size(), before - first);
    for (size_t i = end; i-- > 0;)
      if (!fn(first + i, (*steps)[i])) return ScanEnd::Stopped;
  }
  return ScanEnd::Exhausted;
}

}  // namespace ttd
