#include "formats/xray/call_stack.h"

namespace ttd::fmt::xray {

CallStackTracker::ThreadStack& CallStackTracker::thread(uint64_t tid) {
  // Events come in runs of one thread (a buffer at a time): cache the last.
  if (tid != last_tid_ || !last_) {
    last_ = &threads_[tid];  // unordered_map never moves its nodes
    last_tid_ = tid;
  }
  return *last_;
}

void CallStackTracker::close(ThreadStack& t, uint64_t tid, size_t index, const XrayEvent& e, bool unwound) {
  Frame& f = t.frames[index];
  if (on_call_) {
    Call c;
    c.tid = tid;
    c.pid = t.pid;
    c.func_id = f.func_id;
    c.depth = uint32_t(index);
    c.entry_eid = f.entry_eid;
    c.entry_tsc = f.entry_tsc;
    c.exit_eid = e.eid;
    c.exit_tsc = e.tsc;
    c.args = std::move(f.args);
    c.tail_exit = !unwound && e.kind == EventKind::TailExit;
    c.unwound = unwound;
    on_call_(c);
  }
}

Status CallStackTracker::on_event(const XrayEvent& e) {
  if (!is_function_event(e.kind)) return {};
  ThreadStack& t = thread(e.tid);
  t.pid = e.pid;
  if (is_entry(e.kind)) {
    Frame f;
    f.func_id = e.func_id;
    f.entry_eid = e.eid;
    f.entry_tsc = e.tsc;
    f.args = e.args;
    t.frames.push_back(std::move(f));
    return {};
  }
  // Exit or tail exit: the innermost open call of this function.
  size_t i = t.frames.size();
  while (i > 0 && t.frames[i - 1].func_id != e.func_id) --i;
  if (i == 0) {
    ++orphan_exits_;
    if (on_call_) {
      Call c;
      c.tid = e.tid;
      c.pid = e.pid;
      c.func_id = e.func_id;
      c.exit_eid = e.eid;
      c.exit_tsc = e.tsc;
      c.tail_exit = e.kind == EventKind::TailExit;
      on_call_(c);
    }
    return {};
  }
  size_t index = i - 1;
  for (size_t k = t.frames.size(); k-- > index + 1;) close(t, e.tid, k, e, true);
  close(t, e.tid, index, e, false);
  t.frames.resize(index);
  return {};
}

void CallStackTracker::on_gap(uint64_t, uint64_t) { ++gaps_; }

void CallStackTracker::finish() {
  for (auto& [tid, t] : threads_) {
    if (on_call_) {
      for (size_t i = 0; i < t.frames.size(); ++i) {
        Frame& f = t.frames[i];
        Call c;
        c.tid = tid;
        c.pid = t.pid;
        c.func_id = f.func_id;
        c.depth = uint32_t(i);
        c.entry_eid = f.entry_eid;
        c.entry_tsc = f.entry_tsc;
        c.args = std::move(f.args);
        on_call_(c);
      }
    }
    t.frames.clear();
  }
}

const std::vector<Frame>& CallStackTracker::stack(uint64_t tid) const {
  static const std::vector<Frame> empty;
  auto it = threads_.find(tid);
  return it == threads_.end() ? empty : it->second.frames;
}

const Frame* CallStackTracker::top(uint64_t tid) const {
  const auto& s = stack(tid);
  return s.empty() ? nullptr : &s.back();
}

std::vector<uint64_t> CallStackTracker::threads() const {
  std::vector<uint64_t> out;
  out.reserve(threads_.size());
  for (const auto& [tid, t] : threads_) out.push_back(tid);
  return out;
}

}  // namespace ttd::fmt::xray
