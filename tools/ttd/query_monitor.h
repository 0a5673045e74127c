// The history queries of engine/query as monitor commands of the stub:
// history (memory and registers), executions, calls and search, answered
// from the index at the debugger's current position. Arguments and output
// are those of the ttd CLI (`ttd history`, `executions`, `calls`,
// `search`): the same argument forms, hit lines and error messages, with
// a default limit so a query cannot flood the debugger's console.
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
std::optional<gdb::MonitorReply> run_query_monitor(const std::shared_ptr<const Trace>& trace, uint64_t here,
                                                   std::string_view verb, std::string_view args);

// Lines for `monitor help`.
std::string query_monitor_help();

}  // namespace ttd::cli
