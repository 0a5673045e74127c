// Per-thread call stacks from the expanded event stream. XRay records only
// function entries and exits, so the call stack of every thread is the
// whole machine state an XRay trace can show; this visitor rebuilds it and
// reports every finished call (for `ttd calls`).
//
// Matching: an exit closes the innermost open call of the same function.
// Calls above it that never saw their exit (records lost, longjmp,
// exceptions) are closed there too and marked `unwound`. An exit with no
// open call of its function (the trace started inside it, or the entry was
// lost) becomes a call without entry. Tail exits close like exits: the
// runtime writes them for the function that is about to tail-call.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "formats/xray/xray_event.h"

namespace ttd::fmt::xray {

struct Frame {
  uint32_t func_id = 0;
  uint64_t entry_eid = 0;
  uint64_t entry_tsc = 0;
  std::vector<uint64_t> args;
};

struct Call {
  uint64_t tid = 0, pid = 0;
  uint32_t func_id = 0;
  uint32_t depth = 0;                 // open calls below it on its thread
  std::optional<uint64_t> entry_eid;  // none: the entry is not in the trace
  std::optional<uint64_t> exit_eid;   // none: the trace ends inside the call
  uint64_t entry_tsc = 0, exit_tsc = 0;
  std::vector<uint64_t> args;
  bool tail_exit = false;  // left by a tail call
  bool unwound = false;    // closed because an outer call exited
  // TSC ticks between entry and exit, when both are in the trace.
  std::optional<uint64_t> duration() const {
    if (!entry_eid || !exit_eid) return std::nullopt;
    return exit_tsc - entry_tsc;
  }
};

class CallStackTracker : public EventConsumer {
 public:
  using CallFn = std::function<void(const Call&)>;
  // on_call (optional) receives each call when it ends, in exit order.
  explicit CallStackTracker(CallFn on_call = {}) : on_call_(std::move(on_call)) {}

  Status on_event(const XrayEvent& e) override;
  void on_gap(uint64_t tid, uint64_t offset) override;
  // Reports every call still open as a call without exit (end of trace).
  void finish();

  // The open calls of a thread, outermost first (empty for unknown threads).
  const std::vector<Frame>& stack(uint64_t tid) const;
  // The innermost open call of a thread, if any.
  const Frame* top(uint64_t tid) const;
  std::vector<uint64_t> threads() const;
  uint64_t exits_without_entry() const { return orphan_exits_; }
  uint64_t gaps() const { return gaps_; }

 private:
  struct ThreadStack {
    uint64_t pid = 0;
    std::vector<Frame> frames;
  };
  ThreadStack& thread(uint64_t tid);
  void close(ThreadStack& t, uint64_t tid, size_t index, const XrayEvent& e, bool unwound);

  CallFn on_call_;
  std::unordered_map<uint64_t, ThreadStack> threads_;
  uint64_t last_tid_ = ~0ull;
  ThreadStack* last_ = nullptr;
  uint64_t orphan_exits_ = 0;
  uint64_t gaps_ = 0;
};

}  // namespace ttd::fmt::xray
