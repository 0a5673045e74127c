#include "engine/query/call_book.h"

namespace ttd::query {

const char* call_exit_name(CallExit e) {
  switch (e) {
    case CallExit::Return: return "return";
    case CallExit::TailExit: return "tail-exit";
    case CallExit::Unwound: return "unwound";
    case CallExit::Open: return "open";
  }
  return "?";
}

CallBook::Slot* CallBook::slot(uint64_t seq) {
  if (q_.order == CallOrder::Exit) {
    auto it = open_.find(seq);
    return it == open_.end() ? nullptr : &it->second;
  }
  if (seq < first_seq_ || seq - first_seq_ >= in_order_.size()) return nullptr;
  return &in_order_[seq - first_seq_];
}

void CallBook::enter(uint32_t tidx, Call c, OpenFrame f) {
  auto& st = stack(tidx);
  c.depth = uint32_t(st.size());
  ++stats_.calls;
  bool keep = (!q_.tid || *q_.tid == c.tid) && (!q_.max_depth || c.depth <= *q_.max_depth) &&
              (!q_.function || !c.function || *q_.function == *c.function);
  f.record = ~0ull;
  if (keep) {
    f.record = next_seq_++;
    if (q_.order == CallOrder::Exit) open_.emplace(f.record, Slot{std::move(c)});
    else in_order_.push_back(Slot{std::move(c)});  // at first_seq_ + size()
  }
  st.push_back(f);
}

void CallBook::set_function(const OpenFrame& f, uint64_t function) {
  Slot* s = slot(f.record);
  if (!s) return;
  s->call.function = function;
  if (q_.function && *q_.function != function) drop(f.record);
}

void CallBook::discard(const OpenFrame& f) {
  --stats_.calls;
  if (slot(f.record)) drop(f.record);
}

void CallBook::drop(uint64_t seq) {
  Slot* s = slot(seq);
  if (!s) return;
  s->dropped = true;
  if (q_.order == CallOrder::Exit) open_.erase(seq);
}

void CallBook::completed(uint64_t seq) {
  Slot* s = slot(seq);
  if (!s || s->dropped) return;
  s->complete = true;
  if (q_.order == CallOrder::Exit) {
    ready_.push_back(std::move(s->call));
    open_.erase(seq);
  }
}

void CallBook::exit(uint32_t tidx, size_t pos, uint64_t eid, CallExit how, std::optional<uint64_t> value) {
  auto& st = stack(tidx);
  while (st.size() > pos) {
    OpenFrame f = st.back();
    st.pop_back();
    bool target = st.size() == pos;
    if (Slot* s = slot(f.record)) {
      s->call.exit_eid = eid;
      s->call.exit = target ? how : CallExit::Unwound;
      if (target) s->call.return_value = value;
      completed(f.record);
    }
  }
}

std::optional<Call> CallBook::pop_ready() {
  if (q_.order == CallOrder::Exit) {
    if (ready_.empty() && closed_) {
      // The window ended: calls still open come out in entry order.
      for (auto& [seq, s] : open_)
        if (!s.dropped) ready_.push_back(std::move(s.call));
      open_.clear();
    }
    if (ready_.empty()) return std::nullopt;
    Call c = std::move(ready_.front());
    ready_.pop_front();
    c.index = reported_++;
    return c;
  }
  while (!in_order_.empty()) {
    Slot& s = in_order_.front();
    if (s.dropped) {
      in_order_.pop_front();
      ++first_seq_;
      continue;
    }
    if (!s.complete && !closed_) return std::nullopt;
    Call c = std::move(s.call);
    in_order_.pop_front();
    ++first_seq_;
    c.index = reported_++;
    return c;
  }
  return std::nullopt;
}

}  // namespace ttd::query
