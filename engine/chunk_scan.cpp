#include "engine/chunk_scan.h"

#include <algorithm>

#include "engine/index_file.h"
#include "engine/step_codec.h"

namespace ttd {

namespace {

// Which watchpoint (if any) a step's memory accesses hit.
struct WatchMatcher : EffectVisitor {
  const std::vector<Watchpoint>* watches = nullptr;
  const Watchpoint* hit = nullptr;
  WatchKind hit_kind = WatchKind::Write;

  void check(uint64_t addr, uint64_t size, bool write) {
    if (hit || size == 0) return;
    for (const auto& w : *watches) {
      bool kind_ok = w.kind == WatchKind::Access || (write ? w.kind == WatchKind::Write : w.kind == WatchKind::Read);
      if (!kind_ok) continue;
      if (addr < w.addr + w.len && w.addr < addr + size) {
        hit = &w;
        hit_kind = w.kind;
        return;
      }
    }
  }
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t, uint64_t addr, const uint8_t*, uint64_t len) override { check(addr, len, true); }
  void mem_read(uint64_t, uint64_t addr, uint64_t size, const uint8_t*) override { check(addr, size, false); }
};

bool has_bp(const StopConditions& c, uint64_t pc) {
  return std::find(c.breakpoints.begin(), c.breakpoints.end(), pc) != c.breakpoints.end();
}

}  // namespace

ChunkScan::ChunkScan(const Trace& t) : trace_(t) {}

std::optional<uint32_t> ChunkScan::tidx_of(uint64_t tid) const {
  const auto& slots = trace_.index().thread_slots();
  for (uint32_t i = 0; i < slots.size(); ++i)
    if (slots[i].tid == tid) return i;
  return std::nullopt;
}

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
  const IndexFile& idx = trace_.index();
  const ChunkEntry ch = idx.chunk(chunk);
  std::string buf;
  if (!idx.read_blob(ch.stream, buf)) return false;
  StepDecoder dec(trace_.arch(), reinterpret_cast<const uint8_t*>(buf.data()), buf.size());
  DecodedStep s;
  WatchMatcher m;
  m.watches = &c.watchpoints;
  for (uint64_t eid = ch.first_eid; eid < ch.first_eid + ch.steps; ++eid) {
    if (!dec.next(s)) return false;
    m.hit = nullptr;
    if (want_accesses && !dec.effects(s, m, 0)) return false;
    if (!fn(eid, s, m)) return true;
  }
  return true;
}

std::optional<uint64_t> ChunkScan::find_thread_forward(uint64_t from, uint64_t tid) const {
  auto t = tidx_of(tid);
  if (!t) return std::nullopt;
  const IndexFile& idx = trace_.index();
  uint64_t count = idx.meta().step_count;
  StopConditions none;
  for (size_t c = idx.chunk_of(from); from < count && c < idx.chunk_count(); ++c) {
    if (!idx.summary(c)->has_thread(*t)) continue;
    std::optional<uint64_t> found;
    scan_chunk(c, false, none, [&](uint64_t eid, const DecodedStep& s, const WatchMatcher&) {
      if (eid >= from && s.tidx == *t) {
        found = eid;
        return false;
      }
      return true;
    });
    if (found) return found;
  }
  return std::nullopt;
}

std::optional<uint64_t> ChunkScan::find_thread_backward(uint64_t before, uint64_t tid) const {
  auto t = tidx_of(tid);
  if (!t || before == 0) return std::nullopt;
  const IndexFile& idx = trace_.index();
  StopConditions none;
  for (size_t c = idx.chunk_of(before - 1) + 1; c-- > 0;) {
    if (!idx.summary(c)->has_thread(*t)) continue;
    std::optional<uint64_t> found;
    scan_chunk(c, false, none, [&](uint64_t eid, const DecodedStep& s, const WatchMatcher&) {
      if (eid >= before) return false;
      if (s.tidx == *t) found = eid;
      return true;
    });
    if (found) return found;
  }
  return std::nullopt;
}

ScanHit ChunkScan::find_stop_forward(uint64_t start, const StopConditions& c, const InterruptCheck& interrupted) const {
  const IndexFile& idx = trace_.index();
  bool after = trace_.arch().watch_timing == WatchTiming::AfterAccess;
  bool watches = !c.watchpoints.empty();
  ScanHit hit;
  uint64_t count = idx.meta().step_count;
  if (start >= count) return hit;
  for (size_t ch = idx.chunk_of(start); ch < idx.chunk_count(); ++ch) {
    if (interrupted && interrupted()) {
      hit.interrupted = true;
      hit.eid = idx.chunk(ch).first_eid;
      return hit;
    }
    if (!may_hit(ch, c)) continue;
    scan_chunk(ch, watches, c, [&](uint64_t eid, const DecodedStep& s, const WatchMatcher& m) {
      if (eid > start && has_bp(c, s.pc)) {
        hit = ScanHit{true, false, eid, StopKind::Breakpoint, s.pc};
        return false;
      }
      if (m.hit && eid >= start) {
        uint64_t pos = after ? eid + 1 : eid;
        if (pos > start) {
          hit = ScanHit{true, false, pos, StopKind::Watchpoint, m.hit->addr, m.hit_kind, eid};
          return false;
        }
      }
      return true;
    });
    if (hit.found) return hit;
  }
  return hit;
}

ScanHit ChunkScan::find_stop_backward(uint64_t start, const StopConditions& c, const InterruptCheck& interrupted) const {
  const IndexFile& idx = trace_.index();
  bool after = trace_.arch().watch_timing == WatchTiming::AfterAccess;
  bool watches = !c.watchpoints.empty();
  ScanHit best;
  if (start == 0) return best;
  for (size_t ch = idx.chunk_of(start - 1) + 1; ch-- > 0;) {
    if (interrupted && interrupted()) {
      best.interrupted = true;
      best.eid = idx.chunk(ch).first_eid;
      return best;
    }
    if (!may_hit(ch, c)) continue;
    scan_chunk(ch, watches, c, [&](uint64_t eid, const DecodedStep& s, const WatchMatcher& m) {
      if (eid >= start) return false;
      if (has_bp(c, s.pc) && (!best.found || eid >= best.eid)) best = ScanHit{true, false, eid, StopKind::Breakpoint, s.pc};
      if (m.hit) {
        uint64_t pos = after ? eid : eid + 1;
        if (pos < start && (!best.found || pos >= best.eid))
          best = ScanHit{true, false, pos, StopKind::Watchpoint, m.hit->addr, m.hit_kind, eid};
      }
      return true;
    });
    if (best.found) return best;
  }
  return best;
}

}  // namespace ttd
