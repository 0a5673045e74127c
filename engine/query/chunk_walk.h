// The loop every summary-driven query shares: visit the chunks that
// overlap a scan plan in the query's direction, ask the query whether a
// chunk can hold a hit (from its summary alone), let it decode the chunk
// into hits in step order, and deliver those hits in the query's
// direction with resume tokens, honouring the plan's skip count.
#pragma once
#include <algorithm>
#include <functional>
#include <vector>

#include "engine/query/chunk_reader.h"
#include "engine/query/query_types.h"

namespace ttd::query {

// Polled once per chunk; returning true abandons the query (reported as
// an error saying so), so a debugger or Python can interrupt long scans.
using CancelCheck = InterruptCheck;  // engine/motion_types.h
Error interrupted_error();

// Hit must have `uint64_t eid` and `ResumeToken next`.
// may_hit(size_t chunk) -> bool: false skips the chunk undecoded.
// collect(ChunkReader&, uint64_t lo, uint64_t hi, std::vector<Hit>&) -> Status:
//   the chunk is loaded; appends the hits of steps lo..hi in step order
//   (and, within a step, in effect order).
// deliver(Hit&) -> bool: false stops the walk.
template <class Hit, class MayHit, class Collect, class Deliver>
Status walk_chunks(const Trace& t, const ScanPlan& plan, Direction dir, const CancelCheck& cancel, MayHit&& may_hit,
                   Collect&& collect, Deliver&& deliver) {
  ChunkReader reader(t);
  if (reader.chunk_count() == 0) return {};
  const bool fwd = dir == Direction::Forward;
  const uint64_t lo_all = fwd ? plan.first : plan.last;
  const uint64_t hi_all = fwd ? plan.last : plan.first;
  size_t c = reader.chunk_of(plan.first);
  const size_t c_end = reader.chunk_of(plan.last);
  std::vector<Hit> hits;
  for (;;) {
    if (cancel && cancel()) return interrupted_error();
    if (may_hit(c)) {
      const ChunkEntry& ch = reader.chunk(c);
      uint64_t lo = std::max<uint64_t>(lo_all, ch.first_eid);
      uint64_t hi = std::min<uint64_t>(hi_all, ch.first_eid + ch.steps - 1);
      if (ch.steps && lo <= hi) {
        if (auto s = reader.load(c); !s) return s;
        hits.clear();
        if (auto s = collect(reader, lo, hi, hits); !s) return s;
        uint64_t prev_eid = ~0ull;
        uint32_t ordinal = 0;
        auto visit = [&](Hit& h) {
          ordinal = h.eid == prev_eid ? ordinal + 1 : 0;
          prev_eid = h.eid;
          if (h.eid == plan.first && ordinal < plan.skip) return true;
          h.next = ResumeToken{h.eid, ordinal + 1};
          return bool(deliver(h));
        };
        if (fwd) {
          for (auto& h : hits)
            if (!visit(h)) return {};
        } else {
          for (auto it = hits.rbegin(); it != hits.rend(); ++it)
            if (!visit(*it)) return {};
        }
      }
    }
    if (c == c_end) break;
    c = fwd ? c + 1 : c - 1;
  }
  return {};
}

}  // namespace ttd::query
