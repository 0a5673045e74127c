// EngineDebuggee::resume: continue and reverse-continue go to the engine's
// indexed searches (chunk summaries skip what cannot hit); steps are
// planned on the pc stream by the line stepper, then checked for watched
// accesses on the way, then the cursor seeks once to where they land.
#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "dap/model/engine_debuggee.h"
#include "dap/model/line_stepper.h"

namespace ttd::dap {

namespace {

// Watched ranges longer than this get no old/new value in the stop text.
constexpr uint64_t kMaxWatchDetailBytes = 4096;

WatchKind engine_kind(WatchAccess a) {
  switch (a) {
    case WatchAccess::Read: return WatchKind::Read;
    case WatchAccess::ReadWrite: return WatchKind::Access;
    default: return WatchKind::Write;
  }
}

bool access_matches(const WatchRange& w, uint64_t addr, uint64_t size, bool write) {
  bool kind_ok = w.access == WatchAccess::ReadWrite || (write ? w.access == WatchAccess::Write : w.access == WatchAccess::Read);
  return kind_ok && size > 0 && addr < w.addr + w.len && w.addr < addr + size;
}

std::string bytes_text(const std::vector<uint8_t>& b, const std::vector<uint8_t>& known) {
  for (uint8_t k : known)
    if (!k) return "unknown";
  if (b.size() <= 8) {
    uint64_t v = 0;
    for (size_t i = 0; i < b.size(); ++i) v |= uint64_t(b[i]) << (8 * i);
    int64_t sv = b.size() < 8 && b.size() > 0 ? int64_t(v << (64 - 8 * b.size())) >> (64 - 8 * b.size()) : int64_t(v);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%" PRId64 " (0x%" PRIx64 ")", sv, v);
    return buf;
  }
  std::string s;
  char h[4];
  for (uint8_t x : b) {
    std::snprintf(h, sizeof h, "%02x", x);
    s += h;
  }
  return s;
}

}  // namespace

Result<StopInfo> EngineDebuggee::resume(const ResumeArgs& args, const InterruptCheck& interrupted) {
  if (args.motion == Motion::Continue) return resume_continue(args, interrupted);
  return resume_step(args, interrupted);
}

Result<StopInfo> EngineDebuggee::resume_continue(const ResumeArgs& args, const InterruptCheck& interrupted) {
  StopConditions c;
  c.breakpoints.assign(args.breakpoints.begin(), args.breakpoints.end());
  for (const auto& w : args.watchpoints) c.watchpoints.push_back({w.addr, w.len, engine_kind(w.access)});
  Stop st = args.direction == Direction::Forward ? cursor_.run_forward(c, interrupted) : cursor_.run_backward(c, interrupted);
  StopInfo out;
  out.eid = cursor_.eid();
  out.tid = st.tid ? st.tid : current_thread();
  switch (st.kind) {
    case StopKind::Breakpoint:
      out.cause = StopCause::Breakpoint;
      out.breakpoint_addr = st.addr;
      break;
    case StopKind::Watchpoint: {
      out.cause = StopCause::Watchpoint;
      out.access_eid = st.hit_eid;
      for (size_t i = 0; i < args.watchpoints.size(); ++i)
        if (args.watchpoints[i].addr == st.addr) {
          out.watch_index = i;
          break;
        }
      if (out.watch_index < args.watchpoints.size()) out.detail = watch_detail(out, args.watchpoints[out.watch_index]);
      break;
    }
    case StopKind::HistoryBegin: out.cause = StopCause::HistoryStart; break;
    case StopKind::HistoryEnd: out.cause = StopCause::HistoryEnd; break;
    case StopKind::Interrupted: out.cause = StopCause::Interrupted; break;
    case StopKind::Step: out.cause = StopCause::Step; break;
  }
  return out;
}

std::optional<StopInfo> EngineDebuggee::watch_hit_between(uint64_t from, uint64_t to, Direction dir,
                                                         std::span<const WatchRange> watches) {
  if (watches.empty() || from >= to) return std::nullopt;
  bool after = trace_->arch().watch_timing == WatchTiming::AfterAccess;
  std::optional<StopInfo> hit;
  Status s = trace_->for_each_step(from, to, [&](const StepRecord& rec) {
    for (const auto& m : rec.mem)
      for (size_t i = 0; i < watches.size(); ++i)
        if (access_matches(watches[i], m.addr, m.size, m.write)) {
          StopInfo st;
          st.cause = StopCause::Watchpoint;
          st.tid = rec.info.tid;
          st.access_eid = rec.eid;
          st.watch_index = i;
          // Forward stops after the access on x86 (before it elsewhere);
          // backward stops before it on x86 (after it elsewhere).
          st.eid = dir == Direction::Forward ? (after ? rec.eid + 1 : rec.eid) : (after ? rec.eid : rec.eid + 1);
          hit = st;
          return dir == Direction::Backward;  // forward: the first hit wins; backward: the last
        }
    return true;
  });
  (void)s;  // a corrupt chunk just means no hit found there; the seek reports it
  return hit;
}

std::string EngineDebuggee::watch_detail(const StopInfo& st, const WatchRange& w) {
  // The old value is the memory just before the accessing step; the new
  // value is that memory with every write of the step applied that
  // overlaps the watched range (a memset that covers part of it, or two
  // stores that each cover a piece): any overlapping write is a write.
  if (w.len == 0 || w.len > kMaxWatchDetailBytes) return "";
  std::vector<uint8_t> before(w.len), known(w.len);
  if (cursor_.eid() == st.access_eid) {
    read_process(st.tid, w.addr, before.data(), known.data(), before.size());
  } else {
    if (!scratch_) scratch_ = std::make_unique<Cursor>(trace_);
    if (!scratch_->seek(st.access_eid)) return "";
    const ThreadState* th = scratch_->state().find_thread(st.tid);
    const ProcessState* p = th ? scratch_->state().find_process(th->pid) : nullptr;
    if (p) p->memory.read(w.addr, before.data(), known.data(), before.size());
  }
  std::vector<uint8_t> after = before, after_known = known;
  bool wrote = false;
  (void)trace_->for_each_step(st.access_eid, st.access_eid + 1, [&](const StepRecord& rec) {
    for (const auto& m : rec.mem) {
      if (!m.write || m.value.empty()) continue;
      uint64_t size = std::min<uint64_t>(m.size, m.value.size());
      // Overlap of [m.addr, m.addr + size) and [w.addr, w.addr + w.len),
      // computed without wrapping past the top of the address space.
      uint64_t lo = std::max(m.addr, w.addr);
      uint64_t m_end = m.addr + size < m.addr ? UINT64_MAX : m.addr + size;
      uint64_t w_end = w.addr + w.len < w.addr ? UINT64_MAX : w.addr + w.len;
      uint64_t hi = std::min(m_end, w_end);
      if (lo >= hi) continue;
      for (uint64_t a = lo; a < hi; ++a) {
        after[a - w.addr] = m.value[a - m.addr];
        after_known[a - w.addr] = 1;
      }
      wrote = true;
    }
    return false;
  });
  if (!wrote) return "value " + bytes_text(before, known) + " read";
  return "old value " + bytes_text(before, known) + ", new value " + bytes_text(after, after_known) + " (write)";
}

Result<StopInfo> EngineDebuggee::resume_step(const ResumeArgs& args, const InterruptCheck& interrupted) {
  uint64_t tid = thread_or_current(args.tid);
  auto tidx = timeline_.thread_index(tid);
  if (!tidx) return make_error("step", "thread " + std::to_string(tid) + " is not in the trace");
  std::vector<uint64_t> bps(args.breakpoints.begin(), args.breakpoints.end());
  std::sort(bps.begin(), bps.end());
  StepRequest req;
  req.motion = args.motion;
  req.direction = args.direction;
  req.granularity = args.granularity == Granularity::Line && has_source_info() ? Granularity::Line : Granularity::Instruction;
  req.tidx = *tidx;
  req.from = cursor_.eid();
  req.breakpoints = bps;
  facts_.take_unclassified();
  StepResult r = plan_step(timeline_, facts_, req, interrupted);
  // Steps over calls count frames: where code bytes were missing the count
  // is a guess, and the stop says so rather than look certain.
  uint64_t unclassified = args.motion == Motion::StepIn ? 0 : facts_.take_unclassified();
  uint64_t from = cursor_.eid();
  StopInfo out;
  out.tid = tid;
  uint64_t target = from;
  switch (r.kind) {
    case StepResult::Kind::Target: out.cause = StopCause::Step; target = r.eid; break;
    case StepResult::Kind::Breakpoint: out.cause = StopCause::Breakpoint; out.breakpoint_addr = r.pc; target = r.eid; break;
    case StepResult::Kind::HistoryEnd: out.cause = StopCause::HistoryEnd; target = end_position(); break;
    case StepResult::Kind::HistoryStart: out.cause = StopCause::HistoryStart; target = 0; break;
    case StepResult::Kind::Interrupted: out.cause = StopCause::Interrupted; break;
    case StepResult::Kind::Corrupt: return make_error(trace_->stats().index_path, "the index is corrupt; rebuild it with `ttd index --rebuild`");
  }
  // A watched access on the way stops the step there.
  if (out.cause != StopCause::Interrupted) {
    auto hit = args.direction == Direction::Forward ? watch_hit_between(from, target, args.direction, args.watchpoints)
                                                    : watch_hit_between(target, from, args.direction, args.watchpoints);
    bool earlier = hit && (args.direction == Direction::Forward ? hit->eid <= target : hit->eid >= target);
    if (earlier && hit->eid != from) {
      out = *hit;
      target = hit->eid;
    }
  }
  if (auto s = cursor_.seek(target); !s) return s.error();
  out.eid = cursor_.eid();
  if (out.cause == StopCause::Breakpoint) out.tid = current_thread();
  if (out.cause == StopCause::Watchpoint && out.watch_index < args.watchpoints.size())
    out.detail = watch_detail(out, args.watchpoints[out.watch_index]);
  else if (unclassified)
    out.detail = "call structure incomplete: " + std::to_string(unclassified) +
                 " steps without code bytes (" + trace_->code_source() + "); give the program's ELF as \"program\"";
  return out;
}

}  // namespace ttd::dap
