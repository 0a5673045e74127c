// Call-level differences between two runs: the calls of each (in the order
// they return, so memory stays bounded however long a call lasts) aligned
// by callee, call site and depth; a call with no partner within a window
// of `resync` calls is one run's only, a matched pair whose return values
// (or recorded arguments, XRay) differ is reported with both. Arguments
// of instruction traces are not compared (the trace does not say how many
// registers a function takes; see docs/queries.md).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/query/calls.h"

namespace ttd::diff {

enum class CallDeltaKind : uint8_t { OnlyA, OnlyB, ReturnValue, Arguments };
const char* call_delta_name(CallDeltaKind k);  // "only-a", "only-b", "return-value", "arguments"

struct CallDelta {
  CallDeltaKind kind = CallDeltaKind::OnlyA;
  std::optional<query::Call> a, b;
};

struct CallDiffOptions {
  size_t limit = 50;      // deltas kept (counting goes on)
  size_t resync = 1024;   // calls looked ahead for a partner
  std::function<bool()> cancel;
};

struct CallDiff {
  std::vector<CallDelta> deltas;  // the first `limit`
  uint64_t total = 0;             // all deltas found
  uint64_t calls_a = 0, calls_b = 0, matched = 0;
};

Result<CallDiff> diff_calls(std::shared_ptr<const Trace> a, std::shared_ptr<const Trace> b, const CallDiffOptions& o);

}  // namespace ttd::diff
