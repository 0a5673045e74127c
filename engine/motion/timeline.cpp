#include "engine/motion/timeline.h"

#include <algorithm>

#include "engine/chunk_scan.h"
#include "engine/query/pc_class_cache.h"

namespace ttd {

namespace {

// The planner's pc facts: lines from the caller's table (none without one),
// calls and returns from the engine's classifier, counting the steps it
// could not classify.
struct ClassifiedFacts : PcFacts {
  query::PcClassCache& classes;
  LineTable* lines;
  uint64_t unclassified = 0;
  ClassifiedFacts(query::PcClassCache& c, LineTable* l) : classes(c), lines(l) {}

  Flow flow(uint64_t eid, uint64_t pc) override {
    auto c = classes.at_step(eid, pc);
    // A chunk that cannot be read classifies nothing; the timeline scan
    // reports the corruption itself.
    Flow f = c ? *c : Flow::Unknown;
    if (f == Flow::Unknown) ++unclassified;
    return f;
  }
  bool statement_start(uint64_t pc) override { return lines && lines->statement_start(pc); }
  std::optional<uint64_t> line_key(uint64_t pc) override { return lines ? lines->line_key(pc) : std::nullopt; }
};

std::optional<uint64_t> sole_thread(const Trace& t, std::optional<uint64_t> tid) {
  const auto& threads = t.threads();
  if (threads.size() != 1) return std::nullopt;
  if (tid && *tid != threads.front().tid) return std::nullopt;
  return threads.front().tid;
}

StopConditions watches_only(std::span<const Watchpoint> watches) {
  StopConditions c;
  c.watchpoints.assign(watches.begin(), watches.end());
  return c;
}

}  // namespace

Timeline::Timeline(std::shared_ptr<const Trace> trace)
    : trace_(trace), cursors_(trace), pcs_(*trace), classes_(std::make_unique<query::PcClassCache>(*trace)) {}
Timeline::~Timeline() = default;

Stop Timeline::at_watch_hit(const ScanHit& hit) {
  Stop s{hit.kind, hit.eid, current_tid(), hit.addr, hit.watch, hit.access_eid};
  s.watch_index = hit.watch_index;
  s.access_tid = hit.access_tid;
  return s;
}

std::optional<Stop> Timeline::watch_on_the_way(uint64_t from, uint64_t to, Direction dir,
                                               std::span<const Watchpoint> watches) {
  if (watches.empty() || from >= to) return std::nullopt;
  ChunkScan scan(*trace_);
  StopConditions c = watches_only(watches);
  bool fwd = dir == Direction::Forward;
  ScanHit hit = fwd ? scan.find_stop_forward(from, c, {}, to) : scan.find_stop_backward(to, c, {}, from);
  if (hit.error) {
    Stop s{StopKind::Interrupted, eid(), current_tid()};
    s.error = hit.error;
    return s;
  }
  if (!hit.found || hit.access_eid < from || hit.access_eid >= to) return std::nullopt;
  if (!seek(hit.eid)) return std::nullopt;
  Stop s = at_watch_hit(hit);
  s.tid = hit.access_tid;  // the thread that made the access
  return s;
}

Stop Timeline::step(Direction dir, std::optional<uint64_t> tid, std::span<const Watchpoint> watches) {
  uint64_t t = tid.value_or(current_tid());
  uint64_t from = eid(), count = trace_->step_count();
  std::optional<uint64_t> target;
  if (sole_thread(*trace_, tid)) {
    // One thread: its next and previous steps are simply EID + 1 and - 1.
    if (dir == Direction::Forward && from + 1 < count) target = from + 1;
    if (dir == Direction::Backward && from > 0) target = from - 1;
  } else if (auto tidx = pcs_.thread_index(t)) {
    // t's steps from the cached pc stream: forward, the one after t's next
    // (which runs first); backward, t's latest before here.
    bool seen = false;
    auto visit = [&](uint64_t e, const TimelineStep& s) {
      if (s.tidx != *tidx) return true;
      if (dir == Direction::Forward && !seen) return seen = true;
      target = e;
      return false;
    };
    ScanEnd end = dir == Direction::Forward ? pcs_.forward(from, visit, {}, *tidx) : pcs_.backward(from, visit, {}, *tidx);
    if (end == ScanEnd::Corrupt) {
      // Never "end of history" for a step the damaged chunk may hold.
      Stop s{StopKind::Interrupted, eid(), current_tid()};
      s.error = make_error(trace_->stats().index_path, "a chunk of the index could not be read while looking for thread " +
                                                       std::to_string(t) + "'s " +
                                                       (dir == Direction::Forward ? "next" : "previous") +
                                                       " step; `ttd index --verify` names it, `--rebuild` repairs it");
      return s;
    }
  }
  Stop stop;
  if (!target) {
    bool fwd = dir == Direction::Forward;
    (void)seek(fwd ? count : 0);
    stop = fwd ? Stop{StopKind::HistoryEnd, count, t} : Stop{StopKind::HistoryBegin, 0, current_tid()};
  } else {
    (void)seek(*target);
    stop = Stop{StopKind::Step, *target, t};
  }
  uint64_t to = eid();
  if (auto hit = dir == Direction::Forward ? watch_on_the_way(from, to, dir, watches)
                                           : watch_on_the_way(to, from, dir, watches))
    return *hit;
  return stop;
}

Stop Timeline::run(Direction dir, const StopConditions& c, const InterruptCheck& interrupted, RunOptions options) {
  ChunkScan scan(*trace_);
  uint64_t here = eid(), count = trace_->step_count();
  bool fwd = dir == Direction::Forward;
  if (options.report_access_at_start && trace_->arch().watch_timing == WatchTiming::BeforeAccess) {
    ScanHit at{};
    if (fwd && here < count) at = scan.watched_access_at(here, c, dir);
    if (!fwd && here > 0) at = scan.watched_access_at(here - 1, c, dir);
    if (at.error) {
      Stop s{StopKind::Interrupted, eid(), current_tid()};
      s.error = at.error;
      return s;
    }
    if (at.found) {
      Stop s = at_watch_hit(at);
      s.tid = at.access_tid;
      return s;
    }
  }
  ScanHit hit = fwd ? scan.find_stop_forward(here, c, interrupted) : scan.find_stop_backward(here, c, interrupted);
  if (hit.error) {
    (void)seek(hit.eid);
    Stop s{StopKind::Interrupted, eid(), current_tid()};
    s.error = hit.error;
    return s;
  }
  if (hit.interrupted) {
    (void)seek(fwd ? std::max(here, hit.eid) : std::min(here, hit.eid));
    return Stop{StopKind::Interrupted, eid(), current_tid()};
  }
  if (!hit.found) {
    (void)seek(fwd ? count : 0);
    return Stop{fwd ? StopKind::HistoryEnd : StopKind::HistoryBegin, eid(), current_tid()};
  }
  (void)seek(hit.eid);
  return at_watch_hit(hit);
}

Result<Stop> Timeline::step_by(const StepByRequest& req, LineTable* lines, const InterruptCheck& interrupted) {
  uint64_t tid = req.tid.value_or(current_tid());
  auto tidx = pcs_.thread_index(tid);
  if (!tidx) return make_error("step", "thread " + std::to_string(tid) + " is not in the trace");
  std::vector<uint64_t> bps = req.conditions.breakpoints;
  std::sort(bps.begin(), bps.end());
  StepRequest plan;
  plan.motion = req.motion;
  plan.direction = req.direction;
  plan.granularity = req.unit == StepUnit::Line && lines ? StepUnit::Line : StepUnit::Instruction;
  plan.tidx = *tidx;
  plan.from = eid();
  plan.breakpoints = bps;
  ClassifiedFacts facts(*classes_, lines);
  StepResult r = plan_step(pcs_, facts, plan, interrupted);
  uint64_t from = eid(), target = from;
  Stop out{StopKind::Step, from, tid};
  // Steps over calls count frames: where code bytes were missing the count
  // is a guess, and the stop says so rather than look certain.
  out.unclassified = req.motion == StepMotion::In ? 0 : facts.unclassified;
  using K = StepResult::Kind;
  switch (r.kind) {
    case K::Target: target = r.eid; break;
    case K::Breakpoint: out.kind = StopKind::Breakpoint; out.addr = r.pc; target = r.eid; break;
    case K::HistoryEnd: out.kind = StopKind::HistoryEnd; target = trace_->step_count(); break;
    case K::HistoryStart: out.kind = StopKind::HistoryBegin; target = 0; break;
    case K::Interrupted: out.kind = StopKind::Interrupted; break;
    case K::Corrupt: return make_error(trace_->stats().index_path, "the index is corrupt; rebuild it with `ttd index --rebuild`");
  }
  if (out.kind != StopKind::Interrupted) {
    const auto& w = req.conditions.watchpoints;
    bool fwd = req.direction == Direction::Forward;
    if (auto hit = fwd ? watch_on_the_way(from, target, req.direction, w) : watch_on_the_way(target, from, req.direction, w)) {
      hit->unclassified = out.unclassified;
      return *hit;
    }
  }
  if (auto s = seek(target); !s) return s.error();
  out.eid = eid();
  if (out.kind == StopKind::Breakpoint) out.tid = current_tid();
  return out;
}

Result<WatchedBytes> Timeline::watched_bytes(const Stop& stop, const Watchpoint& w) {
  if (eid() == stop.hit_eid) return ttd::watched_bytes(*trace_, state(), stop.hit_eid, stop.access_tid, w);
  if (!scratch_) scratch_ = std::make_unique<Cursor>(trace_);
  if (auto s = scratch_->seek(stop.hit_eid); !s) return s.error();
  return ttd::watched_bytes(*trace_, scratch_->state(), stop.hit_eid, stop.access_tid, w);
}

std::optional<uint64_t> Timeline::next_execution(Direction dir, std::span<const uint64_t> pcs) {
  std::optional<uint64_t> found;
  auto visit = [&](uint64_t e, const TimelineStep& s) {
    if (!s.is_code() || !std::binary_search(pcs.begin(), pcs.end(), s.pc)) return true;
    found = e;
    return false;
  };
  if (dir == Direction::Forward) pcs_.forward(eid() + 1, visit, {});
  else pcs_.backward(eid(), visit, {});
  return found;
}

}  // namespace ttd
