// Bookkeeping shared by the call walkers: per-thread shadow stacks of open
// calls and the records they produce, handed out in entry order once a
// record and all before it are complete.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "engine/query/calls.h"

namespace ttd::query {

struct OpenFrame {
  uint64_t record = ~0ull;  // sequence number of its record, ~0 when filtered out
  uint64_t return_addr = 0; // instruction traces: where the return lands
  uint64_t function = 0;    // XRay: the function id
};

class CallBook {
 public:
  explicit CallBook(const CallQuery& q) : q_(q) {}

  std::vector<OpenFrame>& stack(uint32_t tidx) {
    if (tidx >= stacks_.size()) stacks_.resize(tidx + 1);
    return stacks_[tidx];
  }
  // Opens a call on thread tidx (c.depth is set here) and pushes its frame.
  void enter(uint32_t tidx, Call c, OpenFrame f);
  // The callee of the top frame of a thread became known (instruction
  // traces learn it at the thread's next step).
  void set_function(const OpenFrame& f, uint64_t function);
  // Drops a frame whose call did not go anywhere (x86 `call $+5`).
  void discard(const OpenFrame& f);
  // Ends the frame at stack position `pos` of tidx and unwinds those above.
  void exit(uint32_t tidx, size_t pos, uint64_t eid, CallExit how, std::optional<uint64_t> value);
  // Ends the window: everything still open stays Open.
  void close() { closed_ = true; }
  // The next call in entry order, if it is ready.
  std::optional<Call> pop_ready();
  CallStats& stats() { return stats_; }
  const CallStats& stats() const { return stats_; }

 private:
  struct Slot {
    Call call;
    bool complete = false;
    bool dropped = false;  // filtered out (its callee became known late)
  };
  Slot* slot(uint64_t seq);
  void completed(uint64_t seq);
  void drop(uint64_t seq);

  const CallQuery& q_;
  std::vector<std::vector<OpenFrame>> stacks_;
  // Entry order: every record from the oldest not yet handed out, by
  // sequence number (in_order_[seq - first_seq_]); numbers are handed out
  // in entry order and retired from the front, so a deque indexes them in
  // O(1) (a map cost a third of a call-heavy walk).
  std::deque<Slot> in_order_;
  uint64_t first_seq_ = 0;
  // Exit order: only the open calls (a record leaves as its call returns),
  // so memory stays bounded by the call depth.
  std::map<uint64_t, Slot> open_;
  std::deque<Call> ready_;            // exit order: complete, not yet handed out
  uint64_t next_seq_ = 0;
  uint64_t reported_ = 0;             // Call::index of the next call handed out
  bool closed_ = false;
  CallStats stats_;
};

}  // namespace ttd::query
