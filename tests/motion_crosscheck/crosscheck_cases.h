// The motion cross-check's cases (issue 18) and their answers from the
// engine motion suite's brute-force oracles (tests/engine/motion_suite.h),
// as JSON for the integration driver:
//
//   {"name", "start": EID, "setup": {} | {"break": pc} |
//      {"watch": {"kind": "write"|"read"|"access", "addr", "len"},
//       "accesses": [{"step": k, "changed": bool}, ...]},
//    "moves": [{"move": M, "eid": E, "kind": K, "hit": k?}, ...]}
//
// M: stepi, rstepi, nexti, rnexti, finish, rfinish (step in / over / out
// by instruction, forward and backward), continue, rcontinue. E is where
// the engine stops (the suite's rule, per architecture); K: step,
// breakpoint, watchpoint, begin, end. A watch case also lists every step
// that accesses the range and whether it changes the watched bytes, from
// which the driver derives gdb's and lldb's view (they step over a
// before-access trap themselves; gdb's `watch` ignores a write that leaves
// the value as it was).
#pragma once
#include <nlohmann/json.hpp>
#include <memory>
#include <string>

#include "engine/trace.h"

namespace ttd::test {

struct Suite;

// Errors: the program has no step a watch case needs (another seed).
Result<nlohmann::json> crosscheck_cases(const Suite& suite);

// Replays every case's moves with a Timeline on `trace`; the first
// difference from the expected EIDs, or "" when all agree.
std::string replay_on_engine(std::shared_ptr<const Trace> trace, const nlohmann::json& cases);

}  // namespace ttd::test
