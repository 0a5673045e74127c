// `monitor origin REG|ADDR:LEN [DEPTH]` in gdb and lldb: where the value
// at the debugger's current position came from (engine/query/origin.h),
// the same tree `ttd origin` prints. Options: --depth N, --breadth N,
// --nodes N, --at EID (default: here), --json.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>

#include "engine/trace.h"
#include "gdbstub/target.h"

namespace ttd::cli {

gdb::MonitorReply origin_monitor(const std::shared_ptr<const Trace>& t, uint64_t here, std::string_view args,
                                 const InterruptCheck& interrupted);

}  // namespace ttd::cli
