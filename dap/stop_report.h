// Running the debuggee on behalf of a request and telling the client why
// it stopped: gathers the session's breakpoints and watchpoints into
// ResumeArgs, maps a hit back to the DAP breakpoint ids, and sends the
// stopped event with a reason a user can read ("breakpoint", "data
// breakpoint", "step", "end of history", ...).
#pragma once
#include <string>

#include "dap/debuggee.h"
#include "dap/protocol/outbox.h"
#include "dap/session_state.h"

namespace ttd::dap {

// Resumes with every active breakpoint and watchpoint, then reports.
void resume_and_report(SessionState& s, Outbox& out, Motion motion, Direction direction, Granularity granularity,
                       uint64_t tid);

// Reports a stop that did not come from resume() (entry, goto, seek).
void report_position(SessionState& s, Outbox& out, const std::string& reason, const std::string& description);

// Converts a source position for the client (0- or 1-based lines).
int client_line(const SessionState& s, int line);
int client_column(const SessionState& s, int column);
int from_client_line(const SessionState& s, int64_t line);

}  // namespace ttd::dap
