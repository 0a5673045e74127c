#include "dap/stop_report.h"

#include <algorithm>

#include "dap/handlers/breakpoint_conditions.h"
#include "dap/protocol/json_args.h"

namespace ttd::dap {

int client_line(const SessionState& s, int line) { return s.client.lines_start_at1 ? line : std::max(0, line - 1); }
int client_column(const SessionState& s, int column) {
  if (column <= 0) column = 1;
  return s.client.columns_start_at1 ? column : column - 1;
}
int from_client_line(const SessionState& s, int64_t line) {
  return int(s.client.lines_start_at1 ? line : line + 1);
}

namespace {

struct HitNames {
  std::string reason;
  std::vector<int> ids;
};

// Which client breakpoints sit at pc, and the reason DAP names for them.
HitNames breakpoint_hit(const SessionState& s, uint64_t pc) {
  HitNames h;
  auto scan = [&](const std::vector<BreakpointRecord>& v, const char* reason) {
    for (const auto& b : v)
      if (std::find(b.addrs.begin(), b.addrs.end(), pc) != b.addrs.end()) {
        if (h.reason.empty()) h.reason = reason;
        h.ids.push_back(b.id);
      }
  };
  for (const auto& [path, v] : s.source_breakpoints) scan(v, "breakpoint");
  scan(s.function_breakpoints, "function breakpoint");
  scan(s.instruction_breakpoints, "instruction breakpoint");
  if (h.reason.empty()) h.reason = "breakpoint";
  return h;
}

void send_stopped(SessionState& s, Outbox& out, const std::string& reason, uint64_t tid, const std::string& description,
                  const std::vector<int>& hit_ids) {
  s.stopped_tid = tid;
  json body = {{"reason", reason}, {"threadId", tid}, {"allThreadsStopped", true}, {"description", description},
               {"preserveFocusHint", false}};
  if (!hit_ids.empty()) body["hitBreakpointIds"] = hit_ids;
  out.event("stopped", body);
}

}  // namespace

void resume_and_report(SessionState& s, Outbox& out, Motion motion, Direction direction, Granularity granularity,
                       uint64_t tid) {
  // Conditional breakpoints and logpoints take part in continue and
  // reverse-continue only: a step that met one would have to resume as the
  // step it was, which only the debuggee knows how to do.
  std::vector<uint64_t> pcs;
  bool judged = false;  // some breakpoint needs judging at its stops
  for (const BreakpointRecord* b : all_breakpoints(s)) {
    if (!b->plain() && motion != Motion::Continue) continue;
    if (!b->plain()) judged = true;
    pcs.insert(pcs.end(), b->addrs.begin(), b->addrs.end());
  }
  std::sort(pcs.begin(), pcs.end());
  pcs.erase(std::unique(pcs.begin(), pcs.end()), pcs.end());
  std::vector<Watchpoint> watches;
  for (const auto& d : s.data_breakpoints) watches.push_back(d.range);

  ResumeArgs args;
  args.motion = motion;
  args.direction = direction;
  args.granularity = granularity;
  args.tid = tid;
  args.breakpoints = pcs;
  args.watchpoints = watches;
  s.forget_handles();
  auto interrupted = [&s] { return s.interrupt.load(std::memory_order_relaxed); };
  auto r = s.debuggee->resume(args, interrupted);
  std::optional<BreakpointVerdict> verdict;
  // Resume, judge each breakpoint stop, print logpoints, and go on until a
  // breakpoint says stop (or anything else stops the run).
  while (judged && r && r->cause == StopKind::Breakpoint) {
    verdict = judge_breakpoint_stop(s, r->breakpoint_addr, r->tid);
    for (const auto& line : verdict->log_lines) out.output(line + "\n", "console");
    if (verdict->stop) break;
    if (interrupted()) {
      StopInfo paused = *r;
      paused.cause = StopKind::Interrupted;
      r = paused;
      break;
    }
    uint64_t was = r->eid;
    s.forget_handles();
    r = s.debuggee->resume(args, interrupted);
    if (r && r->cause == StopKind::Breakpoint && r->eid == was) break;  // no progress: stop rather than spin
  }
  if (r && verdict && !verdict->problem.empty()) out.output("ttd dap: " + verdict->problem + "\n", "stderr");
  if (!r) {
    out.output("ttd dap: " + r.error().to_string() + "\n", "stderr");
    send_stopped(s, out, "pause", s.debuggee->current_thread(),
                 "Stopped by an error at EID " + std::to_string(s.debuggee->position()) + ": " + r.error().message, {});
    return;
  }
  const StopInfo& st = *r;
  std::string at = " at EID " + std::to_string(st.eid);
  switch (st.cause) {
    case StopKind::Step:
      send_stopped(s, out, "step", st.tid, "Stepped" + at + (st.detail.empty() ? "" : ": " + st.detail), {});
      break;
    case StopKind::Breakpoint: {
      HitNames h = breakpoint_hit(s, st.breakpoint_addr);
      if (verdict && !verdict->ids.empty()) h.ids = verdict->ids;
      std::string ids;
      for (int id : h.ids) ids += (ids.empty() ? " " : ", ") + std::to_string(id);
      std::string what = h.reason == "breakpoint" ? "Breakpoint" : h.reason == "function breakpoint" ? "Function breakpoint"
                                                                                                   : "Instruction breakpoint";
      send_stopped(s, out, h.reason, st.tid, what + ids + " hit" + at, h.ids);
      break;
    }
    case StopKind::Watchpoint: {
      std::vector<int> ids;
      std::string what = "watched memory";
      if (st.watch_index < s.data_breakpoints.size()) {
        ids.push_back(s.data_breakpoints[st.watch_index].id);
        what = s.data_breakpoints[st.watch_index].description;
      }
      std::string desc = "Data breakpoint: " + what + " accessed by the step at EID " + std::to_string(st.access_eid) +
                         (st.eid <= st.access_eid ? " (stopped before it)" : " (stopped after it)");
      if (!st.detail.empty()) desc += "; " + st.detail;
      send_stopped(s, out, "data breakpoint", st.tid, desc, ids);
      break;
    }
    case StopKind::HistoryBegin:
      out.output("Reached the start of the recorded history (EID 0): nothing happened before this point.\n");
      send_stopped(s, out, "start of history", st.tid,
                   "Start of history: EID 0 is the first recorded step" + (st.detail.empty() ? "" : "; " + st.detail), {});
      break;
    case StopKind::HistoryEnd:
      out.output("Reached the end of the recorded history (EID " + std::to_string(st.eid) +
                 "): the trace ends here. Step back or reverse-continue to go back.\n");
      send_stopped(s, out, "end of history", st.tid,
                   "End of history: EID " + std::to_string(st.eid) + " is after the last recorded step" +
                       (st.detail.empty() ? "" : "; " + st.detail),
                   {});
      break;
    case StopKind::Interrupted:
      send_stopped(s, out, "pause", st.tid, "Paused" + at, {});
      break;
  }
}

void report_position(SessionState& s, Outbox& out, const std::string& reason, const std::string& description) {
  s.forget_handles();
  send_stopped(s, out, reason, s.debuggee->current_thread(), description, {});
}

}  // namespace ttd::dap
