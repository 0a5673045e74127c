// Calls: call/return pairing over a window of the trace, in entry order.
// Instruction traces pair call and return instructions (classified with
// Capstone from the code bytes in memory, else from the program image,
// with link-register/stack heuristics where the code is unknown) through
// per-thread shadow stacks; traces of function events (XRay: steps with a
// "function" attribute, no registers, no code bytes) pair their native
// enter / exit / tail-exit events. A walk that met steps without code
// bytes says so (incomplete_reason): its calls there are guesses, maybe
// too few. Chunks that hold no call or return instruction (by their pc
// summaries) are skipped undecoded.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/query/chunk_walk.h"
#include "engine/query/query_types.h"
#include "engine/trace.h"

namespace ttd::query {

enum class CallExit : uint8_t {
  Return,    // a return instruction / XRay exit ended it
  TailExit,  // XRay tail exit
  Unwound,   // a return to an outer frame (longjmp, exceptions) ended it
  Open,      // still running at the end of the window
};
const char* call_exit_name(CallExit e);  // "return", "tail-exit", "unwound", "open"

enum class CallOrder : uint8_t {
  Entry,  // pre-order: a call comes out once it and all calls entered before it are complete
  Exit,   // post-order: a call comes out as soon as it returns (bounded memory)
};

struct CallQuery {
  EidWindow window;                   // calls entered in [from, to)
  CallOrder order = CallOrder::Entry;
  std::optional<uint64_t> function;   // callee entry pc, or XRay function id
  std::optional<uint64_t> tid;
  std::optional<uint32_t> max_depth;  // only calls at most this deep (0 = outermost)
  CancelCheck cancel;
};

struct Call {
  uint64_t index = 0;      // entry order among the calls the query reports
  uint64_t tid = 0;
  uint32_t depth = 0;      // open calls of the thread at entry, counted from the window start
  std::optional<uint64_t> function;  // callee entry pc (instruction traces) or XRay function id
  uint64_t function_pc = 0;          // XRay: the function's address (or its id without an instr map)
  uint64_t call_site = 0;  // pc of the call instruction (0 for XRay)
  uint64_t entry_eid = 0;  // the call instruction / the XRay enter event
  std::optional<uint64_t> exit_eid;  // the return instruction / XRay exit event
  CallExit exit = CallExit::Open;
  // The return register (rax, x0, ...) before the return instruction runs:
  // the value returned, when the trace knows it.
  std::optional<uint64_t> return_value;
  std::vector<uint64_t> args;  // XRay enter-with-arguments events
  std::string symbol;          // XRay, when the trace names the function
};

struct CallStats {
  uint64_t calls = 0;            // calls seen (before the function/thread/depth filters)
  uint64_t orphan_returns = 0;   // returns to frames entered before the window
  uint64_t chunks_decoded = 0, chunks_skipped = 0;
  uint64_t pcs_classified = 0, pcs_unknown = 0;  // unknown: no code bytes, heuristics used
  uint64_t pcs_from_program = 0;     // classified from the program image (the trace had no bytes)
  uint64_t unclassified_steps = 0;   // steps in the window at pcs without code bytes
};

// Why the calls found so far may be too few (steps whose instruction could
// not be classified), or nullopt when every step was classified.
std::optional<std::string> incomplete_reason(const Trace& t, const CallStats& s);
// `{"incomplete":{"reason":"...","unclassified_steps":N,"unknown_pcs":M}}`,
// the JSON form of the same (one line, for JSON Lines output).
std::string incomplete_json(const Trace& t, const CallStats& s);

// Pulls calls one at a time in the query's order. In entry order a call is
// handed out once it and every call entered before it are complete (or
// the window ends), so an outer call that lasts the whole window holds the
// rest back in memory until then; exit order has no such cost.
class CallWalker {
 public:
  static Result<std::unique_ptr<CallWalker>> create(std::shared_ptr<const Trace> t, CallQuery q);
  virtual ~CallWalker() = default;
  virtual Result<std::optional<Call>> next() = 0;
  virtual const CallStats& stats() const = 0;
};

// Calls fn for each call in the query's order until it returns false.
Status scan_calls(std::shared_ptr<const Trace> t, const CallQuery& q, const std::function<bool(const Call&)>& fn);
Result<std::vector<Call>> find_calls(std::shared_ptr<const Trace> t, const CallQuery& q, size_t limit);

}  // namespace ttd::query
