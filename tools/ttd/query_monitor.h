// The history queries of engine/query as monitor commands of the stub:
// history (memory and registers), executions, calls and search, answered
// from the index at the debugger's current position. Arguments and output
// are those of the ttd CLI (`ttd history`, `executions`, `calls`,
// `search`): the same argument forms, hit lines and error messages, with
// a default limit so a query cannot flood the debugger's console.
//
// Hit lines are streamed to the output as they are found (nothing is
// collected, so --limit 0 over a long trace costs no memory), and every
// query polls `interrupted`: Ctrl-C or a client that went away ends it.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/trace.h"
#include "gdbstub/target.h"

namespace ttd::cli {

// The reply to `verb args` at position `here`, or nullopt when `verb` is
// not a query command.
// The returned reply holds what follows the streamed lines (a closing
// line, or the error).
std::optional<gdb::MonitorReply> run_query_monitor(const std::shared_ptr<const Trace>& trace, uint64_t here,
                                                   std::string_view verb, std::string_view args,
                                                   const gdb::MonitorOutput& out, const InterruptCheck& interrupted);

// Lines for `monitor help`.
std::string query_monitor_help();

}  // namespace ttd::cli
