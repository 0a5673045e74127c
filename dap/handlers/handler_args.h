// Argument helpers several handler families share: the thread a request
// names (defaulting to the stopped thread) and the frame behind a frameId.
#pragma once
#include "dap/dispatcher.h"
#include "dap/protocol/json_args.h"

namespace ttd::dap {

// threadId from the arguments; absent -> the thread of the last stop.
// Error when the thread does not exist at the current position.
Result<uint64_t> thread_arg(RequestContext& c, bool required);
// frameId from the arguments; absent -> frame 0 of the stopped thread.
Result<FrameRef> frame_arg(RequestContext& c);
// A DAP Source object for a path.
json source_json(const std::string& path);

}  // namespace ttd::dap
