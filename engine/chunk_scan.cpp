#include "engine/chunk_scan.h"

#include <algorithm>

#include "engine/chunk_steps.h"
#include "engine/summary_filter_gate.h"
#include "engine/watch_rule.h"

namespace ttd {

namespace {

// Which watchpoint (if any) a step's memory accesses hit: the first access
// in effect order, and for it the first watchpoint in the caller's order.
struct WatchMatcher : EffectVisitor {
  const std::vector<Watchpoint>* watches = nullptr;
  const Watchpoint* hit = nullptr;
  size_t hit_index = 0;

  void check(uint64_t addr, uint64_t size, bool write) {
    if (hit) return;
    for (size_t i = 0; i < watches->size(); ++i)
      if (watch_hits((*watches)[i], addr, size, write)) {
        hit = &(*watches)[i];
        hit_index = i;
        return;
      }
  }
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t, uint64_t addr, const uint8_t*, uint64_t len) override { check(addr, len, true); }
  void mem_read(uint64_t, uint64_t addr, uint64_t size, const uint8_t*) override { check(addr, size, false); }
};

ScanHit watch_hit(const Trace& trace, const ChunkStep& s, const WatchMatcher& m, Direction dir) {
  ScanHit h{true, false, watch_stop_position(trace.arch(), s.eid, dir), StopKind::Watchpoint, m.hit->addr,
            m.hit->kind, s.eid};
  h.watch_index = m.hit_index;
  h.access_tid = s.tid;
  return h;
}

bool has_bp(const StopConditions& c, uint64_t pc) {
  return std::find(c.breakpoints.begin(), c.breakpoints.end(), pc) != c.breakpoints.end();
}

// The keys a stop condition's group filters are asked about.
GroupKeys stop_keys(const StopConditions& c) {
  GroupKeys k;
  k.pcs = c.breakpoints;
  for (const auto& w : c.watchpoints) k.memory.push_back({w.addr, w.len, w.kind != WatchKind::Read, w.kind != WatchKind::Write});
  return k;
}

}  // namespace

ChunkScan::ChunkScan(const Trace& t) : trace_(t) {}

bool ChunkScan::may_hit(size_t chunk, const StopConditions& c) const {
  const auto summary = trace_.index().summary(chunk);
  const ChunkSummary& s = *summary;
  for (uint64_t bp : c.breakpoints)
    if (s.has_pc(bp)) return true;
  for (const auto& w : c.watchpoints) {
    if (w.kind != WatchKind::Read && s.writes(w.addr, w.len)) return true;
    if (w.kind != WatchKind::Write && s.reads(w.addr, w.len)) return true;
  }
  return false;
}

template <class Fn>
bool ChunkScan::scan_chunk(size_t chunk, bool want_accesses, const StopConditions& c, Fn&& fn) const {
  // A damaged summary made may_hit() say yes: the steps themselves decide.
  ChunkSteps steps(trace_, DamagedSummary::Decode);
  if (!steps.load(chunk)) return false;
  WatchMatcher m;
  m.watches = &c.watchpoints;
  while (steps.next()) {
    m.hit = nullptr;
    if (want_accesses && !steps.effects(m)) return false;
    if (!fn(steps.step(), m)) return true;
  }
  return steps.status().ok();
}

ScanHit ChunkScan::watched_access_at(uint64_t eid, const StopConditions& c, Direction dir) const {
  ScanHit hit;
  const IndexFile& idx = trace_.index();
  if (c.watchpoints.empty() || eid >= idx.meta().step_count) return hit;
  size_t ch = idx.chunk_of(eid);
  bool read = scan_chunk(ch, true, c, [&](const ChunkStep& s, const WatchMatcher& m) {
    if (s.eid < eid) return true;
    if (m.hit) hit = watch_hit(trace_, s, m, dir);
    return false;
  });
  if (!read) hit.error = idx.chunk_error(ch);
  return hit;
}

ScanHit ChunkScan::find_stop_forward(uint64_t start, const StopConditions& c, const InterruptCheck& interrupted,
                                     uint64_t until) const {
  const IndexFile& idx = trace_.index();
  bool watches = !c.watchpoints.empty();
  ScanHit hit;
  uint64_t count = idx.meta().step_count;
  if (start >= count) return hit;
  const SummaryFilterGate gate(idx, stop_keys(c));
  const uint64_t per_group = gate.chunks_per_group();
  for (size_t ch = idx.chunk_of(start); ch < idx.chunk_count() && idx.chunk(ch).first_eid < until; ++ch) {
    if (interrupted && interrupted()) {
      hit.interrupted = true;
      hit.eid = idx.chunk(ch).first_eid;
      return hit;
    }
    // First chunk looked at in its summary group: skip the rest of the
    // group when its filters rule it out.
    if (!gate.chunk_group_may_hit(ch)) {
      ch = (ch / per_group + 1) * per_group - 1;
      continue;
    }
    if (!may_hit(ch, c)) continue;
    bool read = scan_chunk(ch, watches, c, [&](const ChunkStep& s, const WatchMatcher& m) {
      if (s.eid > start && has_bp(c, s.pc)) {
        hit = ScanHit{true, false, s.eid, StopKind::Breakpoint, s.pc};
        return false;
      }
      if (m.hit && s.eid >= start) {
        ScanHit h = watch_hit(trace_, s, m, Direction::Forward);
        if (h.eid > start) {
          hit = h;
          return false;
        }
      }
      return true;
    });
    if (hit.found) return hit;
    if (!read) {
      hit.error = idx.chunk_error(ch);
      hit.eid = std::max(start, idx.chunk(ch).first_eid);
      return hit;
    }
  }
  return hit;
}

ScanHit ChunkScan::find_stop_backward(uint64_t start, const StopConditions& c, const InterruptCheck& interrupted,
                                      uint64_t from) const {
  const IndexFile& idx = trace_.index();
  bool watches = !c.watchpoints.empty();
  ScanHit best;
  if (start == 0) return best;
  const SummaryFilterGate gate(idx, stop_keys(c));
  const uint64_t per_group = gate.chunks_per_group();
  const size_t last = idx.chunk_of(start - 1);
  for (size_t ch = last + 1; ch-- > 0;) {
    if (idx.chunk(ch).first_eid + idx.chunk(ch).steps <= from) break;
    if (interrupted && interrupted()) {
      best.interrupted = true;
      best.eid = idx.chunk(ch).first_eid;
      return best;
    }
    // As forward: the group's filters first, then its chunks' summaries.
    if (!gate.chunk_group_may_hit(ch)) {
      ch -= ch % per_group;  // the loop's ch-- moves to the group before
      continue;
    }
    if (!may_hit(ch, c)) continue;
    bool read = scan_chunk(ch, watches, c, [&](const ChunkStep& s, const WatchMatcher& m) {
      if (s.eid >= start) return false;
      if (has_bp(c, s.pc) && (!best.found || s.eid >= best.eid))
        best = ScanHit{true, false, s.eid, StopKind::Breakpoint, s.pc};
      if (m.hit) {
        ScanHit h = watch_hit(trace_, s, m, Direction::Backward);
        if (h.eid < start && (!best.found || h.eid >= best.eid)) best = h;
      }
      return true;
    });
    // A hit after the damage would still be right, but one before it could
    // be missed: report the damage, never a stop that may be the wrong one.
    if (!read) {
      best = ScanHit{};
      best.error = idx.chunk_error(ch);
      best.eid = std::min(start, idx.chunk(ch).first_eid + idx.chunk(ch).steps);
      return best;
    }
    if (best.found) return best;
  }
  return best;
}

}  // namespace ttd
