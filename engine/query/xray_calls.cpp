// Call pairing for XRay traces: every step is a function event (kinds
// FunctionEnter / FunctionExit / FunctionTailExit with attributes
// "function", "args", "symbol"). An exit closes the innermost open call of
// the same function on its thread, unwinding any calls above it whose
// exits the trace lost; an exit with no open call of its function is an
// orphan (its enter came before the window).
#include "engine/query/call_book.h"
#include "engine/query/call_walkers.h"
#include "engine/query/chunk_reader.h"

namespace ttd::query {

namespace {

class XrayCallWalker : public CallWalker {
 public:
  XrayCallWalker(std::shared_ptr<const Trace> t, CallQuery q) : t_(std::move(t)), q_(std::move(q)), book_(q_), reader_(*t_) {
    next_chunk_ = reader_.chunk_of(q_.window.from);
    last_chunk_ = reader_.chunk_of(q_.window.to - 1);
    function_key_ = reader_.attr_key("function");
    args_key_ = reader_.attr_key("args");
    symbol_key_ = reader_.attr_key("symbol");
  }

  Result<std::optional<Call>> next() override {
    for (;;) {
      if (auto c = book_.pop_ready()) return std::optional<Call>(std::move(*c));
      if (done_) return std::optional<Call>();
      if (auto s = advance(); !s) return s.error();
    }
  }
  const CallStats& stats() const override { return book_.stats(); }

 private:
  Status advance() {
    if (next_chunk_ > last_chunk_ || reader_.chunk_count() == 0) {
      book_.close();
      done_ = true;
      return {};
    }
    if (q_.cancel && q_.cancel()) return interrupted_error();
    size_t c = next_chunk_++;
    ++book_.stats().chunks_decoded;
    if (auto s = reader_.load(c); !s) return s;
    while (reader_.next()) {
      const StepView& s = reader_.step();
      if (s.eid >= q_.window.to) break;
      if (s.eid < q_.window.from) continue;
      on_event(s);
    }
    return reader_.status();
  }

  void on_event(const StepView& s) {
    using fmt::StepKind;
    if (s.kind != StepKind::FunctionEnter && s.kind != StepKind::FunctionExit && s.kind != StepKind::FunctionTailExit)
      return;
    reader_.attrs(attrs_);
    std::optional<uint64_t> function;
    Call c;
    for (auto& [key, v] : attrs_) {
      if (function_key_ && key == *function_key_) {
        if (auto* u = std::get_if<uint64_t>(&v)) function = *u;
      } else if (args_key_ && key == *args_key_) {
        if (auto* l = std::get_if<std::vector<uint64_t>>(&v)) c.args = *l;
      } else if (symbol_key_ && key == *symbol_key_) {
        if (auto* str = std::get_if<std::string>(&v)) c.symbol = *str;
      }
    }
    if (!function) return;
    if (s.kind == StepKind::FunctionEnter) {
      c.tid = s.tid;
      c.function = function;
      c.function_pc = s.pc;
      c.entry_eid = s.eid;
      book_.enter(s.tidx, std::move(c), OpenFrame{~0ull, 0, *function});
      return;
    }
    auto& st = book_.stack(s.tidx);
    size_t pos = st.size();
    while (pos > 0 && st[pos - 1].function != *function) --pos;
    if (pos == 0) {
      ++book_.stats().orphan_returns;
      return;
    }
    book_.exit(s.tidx, pos - 1, s.eid, s.kind == StepKind::FunctionTailExit ? CallExit::TailExit : CallExit::Return,
               std::nullopt);
  }

  std::shared_ptr<const Trace> t_;
  CallQuery q_;
  CallBook book_;
  ChunkReader reader_;
  std::optional<uint32_t> function_key_, args_key_, symbol_key_;
  std::vector<std::pair<uint32_t, fmt::AttrValue>> attrs_;
  size_t next_chunk_ = 0, last_chunk_ = 0;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<CallWalker> make_xray_call_walker(std::shared_ptr<const Trace> t, CallQuery q) {
  return std::make_unique<XrayCallWalker>(std::move(t), std::move(q));
}

}  // namespace ttd::query
