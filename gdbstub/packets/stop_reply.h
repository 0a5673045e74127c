// Stop replies ("T05thread:p1.2;swbreak:;10:0010400000000000;" / "W00") and
// the bookkeeping every reported stop needs.
// Spec: the GDB manual, "Stop Reply Packets" (T and W replies, the
// replaylog:begin|end reason for history boundaries).
#pragma once
#include <string>

#include "gdbstub/dispatcher.h"

namespace ttd::gdb::packets {

// The reply for `stop`. The signal is 05 for every kind except Interrupted
// (02) and, for lldb, Attached (13, SIGSTOP: lldb would take a SIGTRAP on
// the first pc for a hit on its entry breakpoint; see stop_reply.cpp);
// history boundaries are T05 too because lldb-16 auto-resumes a thread
// reported with T00, forever. Reason keys are only sent in forms the
// client understands (swbreak:/hwbreak: only after swbreak+/hwbreak+).
// Expedites pc and sp; adds threads:/thread-pcs: for lldb when enabled.
std::string format_stop_reply(const HandlerContext& ctx, const StopReason& stop);

// "T00thread:..;" for a thread that is not the one that stopped
// (qThreadStopInfo for the other threads).
std::string format_no_reason_reply(const HandlerContext& ctx, uint64_t tid);

// Remembers the stop and selects threads the way gdb expects (rr's rule):
// after a forward stop or an interrupt Hg/Hc point at the stopped thread,
// after a reverse stop they are reset to "any".
void note_stop(SessionState& state, const StopReason& stop, Direction direction);

// The process id a thread belongs to (target.pid() when unknown).
uint64_t pid_of(const HandlerContext& ctx, uint64_t tid);

}  // namespace ttd::gdb::packets
