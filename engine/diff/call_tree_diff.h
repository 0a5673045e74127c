// Call-level differences between two runs: the calls of each (in the order
// they return, so memory stays bounded however long a call lasts) aligned
// by callee, call site and depth; a call with no partner within a window
// of `resync` calls is one run's only, a matched pair whose return values
// or arguments differ is reported with both. Arguments are the recorded
// ones of XRay, and of instruction traces the argument registers at the
// call (call_arguments.h: every argument register of the calling
// convention, since the trace does not say how many a function takes).
// A pair whose return values differ is kind ReturnValue, with any
// differing argument registers listed too.
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

// One argument register whose value differs between the runs.
struct ArgumentDelta {
  uint32_t index = 0;  // argument number, 0 = first
  uint16_t reg = 0;    // index into the arch's register table
  std::optional<uint64_t> a, b;  // nullopt: unknown in that run
};

struct CallDelta {
  CallDeltaKind kind = CallDeltaKind::OnlyA;
  std::optional<query::Call> a, b;
  std::vector<ArgumentDelta> arguments;  // matched pairs of instruction traces
};

struct CallDiffOptions {
  size_t limit = 50;      // deltas kept (counting goes on)
  size_t resync = 1024;   // calls looked ahead for a partner
  bool compare_arguments = true;  // instruction traces: read the argument registers of every call
  std::function<bool()> cancel;
};

struct CallDiff {
  std::vector<CallDelta> deltas;  // the first `limit`
  uint64_t total = 0;             // all deltas found
  uint64_t calls_a = 0, calls_b = 0, matched = 0;
};

Result<CallDiff> diff_calls(std::shared_ptr<const Trace> a, std::shared_ptr<const Trace> b, const CallDiffOptions& o);

}  // namespace ttd::diff
