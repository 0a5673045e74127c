// EngineDebuggee::resume, a translator: DAP's continue / next / stepIn /
// stepOut (both directions) become Timeline::run and Timeline::step_by
// (engine/motion/timeline.h), which own the stepping rules, watched-access
// timing and call classification; the engine's Stop becomes DAP's
// StopInfo, with the watched values as text.
#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "dap/model/engine_debuggee.h"
#include "state/byte_order.h"

namespace ttd::dap {

namespace {

// Watched ranges longer than this get no old/new value in the stop text.
constexpr uint64_t kMaxWatchDetailBytes = 4096;

StopConditions conditions_of(const ResumeArgs& args) {
  StopConditions c;
  c.breakpoints.assign(args.breakpoints.begin(), args.breakpoints.end());
  c.watchpoints.assign(args.watchpoints.begin(), args.watchpoints.end());
  return c;
}

StepMotion engine_motion(Motion m) {
  switch (m) {
    case Motion::StepIn: return StepMotion::In;
    case Motion::StepOut: return StepMotion::Out;
    default: return StepMotion::Over;
  }
}

std::string bytes_text(const std::vector<uint8_t>& b, const std::vector<uint8_t>& known) {
  for (uint8_t k : known)
    if (!k) return "unknown";
  if (b.size() <= 8) {
    const uint64_t v = load_le(b.data(), b.size());
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
  Stop st = timeline_.run(args.direction, conditions_of(args), interrupted);
  if (st.error) return *st.error;  // a damaged index: said, not a stop that may be wrong
  StopInfo out = translate(st, args);
  if (!st.tid) out.tid = current_thread();
  return out;
}

Result<StopInfo> EngineDebuggee::resume_step(const ResumeArgs& args, const InterruptCheck& interrupted) {
  StepByRequest req;
  req.motion = engine_motion(args.motion);
  req.direction = args.direction;
  req.unit = args.granularity == Granularity::Line && has_source_info() ? StepUnit::Line : StepUnit::Instruction;
  req.tid = thread_or_current(args.tid);
  req.conditions = conditions_of(args);
  auto st = timeline_.step_by(req, has_source_info() ? &lines_ : nullptr, interrupted);
  if (!st) return st.error();
  if (st->error) return *st->error;
  StopInfo out = translate(*st, args);
  if (st->kind != StopKind::Watchpoint && st->unclassified)
    out.detail = "call structure incomplete: " + std::to_string(st->unclassified) + " steps without code bytes (" +
                 trace_->code_source() + "); give the program's ELF as \"program\"";
  return out;
}

StopInfo EngineDebuggee::translate(const Stop& st, const ResumeArgs& args) {
  StopInfo out;
  out.eid = st.eid;
  out.tid = st.tid;
  out.cause = st.kind;
  if (st.kind == StopKind::Breakpoint) out.breakpoint_addr = st.addr;
  if (st.kind == StopKind::Watchpoint) {
    out.access_eid = st.hit_eid;
    out.watch_index = st.watch_index;
    if (st.watch_index < args.watchpoints.size()) out.detail = watch_detail(st, args.watchpoints[st.watch_index]);
  }
  return out;
}

std::string EngineDebuggee::watch_detail(const Stop& st, const Watchpoint& w) {
  if (w.len == 0 || w.len > kMaxWatchDetailBytes) return "";
  auto bytes = timeline_.watched_bytes(st, w);
  if (!bytes) return "";
  if (!bytes->written) return "value " + bytes_text(bytes->before, bytes->before_known) + " read";
  return "old value " + bytes_text(bytes->before, bytes->before_known) + ", new value " +
         bytes_text(bytes->after, bytes->after_known) + " (write)";
}

}  // namespace ttd::dap
