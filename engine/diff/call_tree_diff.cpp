#include "engine/diff/call_tree_diff.h"

#include <deque>

#include "engine/diff/call_arguments.h"

namespace ttd::diff {

const char* call_delta_name(CallDeltaKind k) {
  switch (k) {
    case CallDeltaKind::OnlyA: return "only-a";
    case CallDeltaKind::OnlyB: return "only-b";
    case CallDeltaKind::ReturnValue: return "return-value";
    case CallDeltaKind::Arguments: return "arguments";
  }
  return "?";
}

namespace {

bool same_call(const query::Call& x, const query::Call& y) {
  return x.function == y.function && x.function_pc == y.function_pc && x.call_site == y.call_site && x.depth == y.depth;
}

// A walker with a look-ahead buffer.
struct CallStream {
  std::unique_ptr<query::CallWalker> w;
  std::deque<query::Call> buf;
  bool done = false;
  uint64_t seen = 0;
  // Buffers up to n calls; false on a query error (in err).
  bool fill(size_t n, Error& err) {
    while (!done && buf.size() < n) {
      auto c = w->next();
      if (!c) return err = c.error(), false;
      if (!*c) {
        done = true;
        break;
      }
      buf.push_back(std::move(**c));
      ++seen;
    }
    return true;
  }
};

Result<CallStream> open_stream(std::shared_ptr<const Trace> t) {
  query::CallQuery q;
  q.window = {0, t->step_count()};
  q.order = query::CallOrder::Exit;
  auto w = query::CallWalker::create(t, q);
  if (!w) return w.error();
  CallStream s;
  s.w = std::move(*w);
  return s;
}

// The entry EIDs of every call of a trace (one walk of its calls).
Result<std::vector<uint64_t>> call_entries(std::shared_ptr<const Trace> t, const std::function<bool()>& cancel) {
  query::CallQuery q;
  q.window = {0, t->step_count()};
  q.order = query::CallOrder::Exit;
  q.cancel = cancel;
  std::vector<uint64_t> out;
  auto s = query::scan_calls(t, q, [&](const query::Call& c) {
    out.push_back(c.entry_eid);
    return true;
  });
  if (!s) return s.error();
  return out;
}

// Argument registers of every call, for instruction traces with an
// argument convention (empty otherwise).
Result<std::unordered_map<uint64_t, CallArguments>> arguments_of(std::shared_ptr<const Trace> t, const CallDiffOptions& o) {
  if (!o.compare_arguments || !t->info().caps.registers || argument_registers(t->arch()).empty())
    return std::unordered_map<uint64_t, CallArguments>{};
  auto e = call_entries(t, o.cancel);
  if (!e) return e.error();
  return read_call_arguments(t, std::move(*e), o.cancel);
}

std::vector<ArgumentDelta> argument_deltas(const std::vector<uint16_t>& regs,
                                           const std::unordered_map<uint64_t, CallArguments>& args_a,
                                           const std::unordered_map<uint64_t, CallArguments>& args_b, const query::Call& x,
                                           const query::Call& y) {
  std::vector<ArgumentDelta> out;
  auto ia = args_a.find(x.entry_eid), ib = args_b.find(y.entry_eid);
  if (ia == args_a.end() || ib == args_b.end()) return out;
  for (uint32_t i = 0; i < regs.size() && i < ia->second.values.size() && i < ib->second.values.size(); ++i)
    if (ia->second.values[i] != ib->second.values[i]) out.push_back({i, regs[i], ia->second.values[i], ib->second.values[i]});
  return out;
}

}  // namespace

Result<CallDiff> diff_calls(std::shared_ptr<const Trace> a, std::shared_ptr<const Trace> b, const CallDiffOptions& o) {
  auto sa = open_stream(a);
  if (!sa) return sa.error();
  auto sb = open_stream(b);
  if (!sb) return sb.error();
  auto args_a = arguments_of(a, o);
  if (!args_a) return args_a.error();
  auto args_b = arguments_of(b, o);
  if (!args_b) return args_b.error();
  const auto arg_regs = argument_registers(a->arch());
  CallDiff out;
  Error err;
  auto add = [&](CallDeltaKind k, const query::Call* x, const query::Call* y, std::vector<ArgumentDelta> args = {}) {
    ++out.total;
    if (out.deltas.size() >= o.limit) return;
    CallDelta d{k, std::nullopt, std::nullopt, std::move(args)};
    if (x) d.a = *x;
    if (y) d.b = *y;
    out.deltas.push_back(std::move(d));
  };
  const size_t window = std::max<size_t>(o.resync, 1);
  for (uint64_t n = 0;; ++n) {
    if (o.cancel && (n & 4095) == 0 && o.cancel()) return make_error("diff", "interrupted");
    if (!sa->fill(1, err) || !sb->fill(1, err)) return err;
    if (sa->buf.empty() && sb->buf.empty()) break;
    if (sa->buf.empty() || sb->buf.empty()) {
      auto& s = sa->buf.empty() ? *sb : *sa;
      add(sa->buf.empty() ? CallDeltaKind::OnlyB : CallDeltaKind::OnlyA, sa->buf.empty() ? nullptr : &s.buf.front(),
          sa->buf.empty() ? &s.buf.front() : nullptr);
      s.buf.pop_front();
      continue;
    }
    const query::Call& x = sa->buf.front();
    const query::Call& y = sb->buf.front();
    if (same_call(x, y)) {
      ++out.matched;
      auto args = argument_deltas(arg_regs, *args_a, *args_b, x, y);
      if (x.return_value != y.return_value)
        add(CallDeltaKind::ReturnValue, &x, &y, std::move(args));
      else if (x.args != y.args || !args.empty())
        add(CallDeltaKind::Arguments, &x, &y, std::move(args));
      sa->buf.pop_front(), sb->buf.pop_front();
      continue;
    }
    // Resynchronise: the nearer partner wins; the calls skipped to reach
    // it are that run's only.
    if (!sa->fill(window, err) || !sb->fill(window, err)) return err;
    size_t ia = 0, ib = 0;
    while (ia < sa->buf.size() && !same_call(sa->buf[ia], y)) ++ia;
    while (ib < sb->buf.size() && !same_call(sb->buf[ib], x)) ++ib;
    bool found_a = ia < sa->buf.size(), found_b = ib < sb->buf.size();
    if (found_a && (!found_b || ia <= ib)) {
      for (size_t i = 0; i < ia; ++i) add(CallDeltaKind::OnlyA, &sa->buf[i], nullptr);
      sa->buf.erase(sa->buf.begin(), sa->buf.begin() + ptrdiff_t(ia));
    } else if (found_b) {
      for (size_t i = 0; i < ib; ++i) add(CallDeltaKind::OnlyB, nullptr, &sb->buf[i]);
      sb->buf.erase(sb->buf.begin(), sb->buf.begin() + ptrdiff_t(ib));
    } else {
      add(CallDeltaKind::OnlyA, &sa->buf.front(), nullptr);
      add(CallDeltaKind::OnlyB, nullptr, &sb->buf.front());
      sa->buf.pop_front(), sb->buf.pop_front();
    }
  }
  out.calls_a = sa->seen, out.calls_b = sb->seen;
  return out;
}

}  // namespace ttd::diff
