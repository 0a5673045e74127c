// What a client attaches to a breakpoint — a condition (a C expression),
// a hit condition, a log message — read when the breakpoint is set and
// judged when a run stops at it. Runs with such breakpoints are a loop
// above Debuggee::resume (dap/stop_report.cpp): resume to the next
// breakpoint stop, judge it, print logpoints, and resume again unless a
// breakpoint there says stop. Knows only the Debuggee interface.
#pragma once
#include <string>
#include <vector>

#include "dap/protocol/json_args.h"
#include "dap/session_state.h"

namespace ttd::dap {

// "N" (the Nth hit and every later one, as lldb and gdb's ignore counts),
// "== N", "> N", ">= N", "< N", "<= N", "% N" (every Nth). Errors say
// what is expected.
Result<HitCondition> parse_hit_condition(const std::string& text);
bool hit_condition_met(const HitCondition& h, uint64_t hits);

// Reads "condition", "hitCondition" and "logMessage" of a client
// breakpoint object into b. A condition that does not parse or a bad hit
// condition leaves b unverified (addrs cleared) with the reason in
// b.message; wrong JSON types are request errors.
Status read_breakpoint_options(const json& client_bp, Debuggee& d, BreakpointRecord& b);

// The verdict at a breakpoint stop at pc: which breakpoints there say stop
// (their ids), and the lines logpoints print. Every breakpoint at pc whose
// condition holds counts a hit. A condition that cannot be evaluated here
// stops, with the reason in `problem` (as gdb and VS Code do).
struct BreakpointVerdict {
  bool stop = false;
  std::vector<int> ids;
  std::vector<std::string> log_lines;
  std::string problem;
};
BreakpointVerdict judge_breakpoint_stop(SessionState& s, uint64_t pc, uint64_t tid);

// A logpoint's message with every {expression} replaced by its value
// ("<error: ...>" where it cannot be evaluated); "{{" and "}}" are braces.
std::string interpolate_log_message(const std::string& message, Debuggee& d, uint64_t tid);

// Every breakpoint record of the session (source, function, instruction).
std::vector<BreakpointRecord*> all_breakpoints(SessionState& s);

}  // namespace ttd::dap
