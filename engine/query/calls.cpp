#include "engine/query/calls.h"

#include "engine/query/call_walkers.h"

namespace ttd::query {

namespace {
// XRay traces record function events, not instructions.
bool is_xray(const Trace& t) { return t.info().format.rfind("xray", 0) == 0; }
}  // namespace

Result<std::unique_ptr<CallWalker>> CallWalker::create(std::shared_ptr<const Trace> t, CallQuery q) {
  if (!t) return make_error("calls", "no trace");
  if (auto w = make_window(*t, q.window.from, q.window.to); !w) return w.error();
  if (is_xray(*t)) return make_xray_call_walker(std::move(t), std::move(q));
  return make_instruction_call_walker(std::move(t), std::move(q));
}

Status scan_calls(std::shared_ptr<const Trace> t, const CallQuery& q, const std::function<bool(const Call&)>& fn) {
  auto w = CallWalker::create(std::move(t), q);
  if (!w) return w.error();
  for (;;) {
    auto c = (*w)->next();
    if (!c) return c.error();
    if (!*c || !fn(**c)) return {};
  }
}

Result<std::vector<Call>> find_calls(std::shared_ptr<const Trace> t, const CallQuery& q, size_t limit) {
  std::vector<Call> out;
  auto s = scan_calls(std::move(t), q, [&](const Call& c) {
    out.push_back(c);
    return limit == 0 || out.size() < limit;
  });
  if (!s) return s.error();
  return out;
}

}  // namespace ttd::query
