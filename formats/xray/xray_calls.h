// Call extraction for `ttd calls`: every call of every thread with its
// entry and exit EIDs (the step numbers the TraceReader gives them), TSCs,
// duration and arguments.
#pragma once
#include <string>
#include <vector>

#include "formats/xray/call_stack.h"
#include "formats/xray/fdr_survey.h"

namespace ttd::fmt::xray {

// Streams each call when it ends (exit order); calls still open at the end
// of the log come last, without exit.
Status for_each_xray_call(const std::string& path, const CallStackTracker::CallFn& fn, XrayReport* report = nullptr);

// All calls, ordered by entry EID (calls whose entry is not in the log are
// placed at their exit EID).
Result<std::vector<Call>> collect_xray_calls(const std::string& path, XrayReport* report = nullptr);

}  // namespace ttd::fmt::xray
