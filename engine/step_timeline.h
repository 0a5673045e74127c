// The trace's step stream reduced to what stepping looks at — pc, thread
// and kind of every step — decoded chunk by chunk straight from the index
// (no state replay, effects skipped) and kept in a small cache of recently
// used chunks, so stepping back and forth nearby costs nothing. The
// Timeline's per-thread steps, its step planner and its goto targets all
// read it (one cache); searches that need effects use engine/chunk_scan.h.
#pragma once
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "engine/trace.h"

namespace ttd {

struct TimelineStep {
  uint64_t pc = 0;
  uint32_t tidx = 0;     // index into the index's thread table
  uint8_t kind = 0;      // fmt::StepKind
  bool is_code() const;  // an instruction (or syscall instruction), not an event
};

enum class ScanEnd : uint8_t { Stopped, Exhausted, Interrupted, Corrupt };

class StepTimeline {
 public:
  explicit StepTimeline(const Trace& trace, size_t cached_chunks = 64);

  std::optional<uint32_t> thread_index(uint64_t tid) const;
  uint64_t thread_id(uint32_t tidx) const;

  // Visits steps from `from` upwards (fn returns false to stop). With
  // only_thread, chunks whose summary says that thread did not run there
  // are skipped undecoded (their steps are not visited).
  using Visitor = std::function<bool(uint64_t eid, const TimelineStep&)>;
  ScanEnd forward(uint64_t from, const Visitor& fn, const std::function<bool()>& interrupted,
                  std::optional<uint32_t> only_thread = std::nullopt);
  // Visits steps below `before`, latest first.
  ScanEnd backward(uint64_t before, const Visitor& fn, const std::function<bool()>& interrupted,
                   std::optional<uint32_t> only_thread = std::nullopt);

 private:
  const std::vector<TimelineStep>* chunk(size_t c);

  const Trace& trace_;
  size_t capacity_;
  std::list<size_t> lru_;  // most recent first
  std::unordered_map<size_t, std::pair<std::vector<TimelineStep>, std::list<size_t>::iterator>> cache_;
};

}  // namespace ttd
