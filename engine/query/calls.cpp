#include "engine/query/calls.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "engine/index_file.h"
#include "engine/query/call_walkers.h"

namespace ttd::query {

namespace {
// A trace of function events (XRay) rather than instructions: its steps
// carry the "function" attribute, and it has no instruction-level state
// (neither registers nor code bytes) to pair instructions with. Decided
// from what the trace holds, not from its format's name.
bool is_function_event_trace(const Trace& t) {
  const auto& caps = t.info().caps;
  if (caps.registers || caps.code_bytes) return false;
  const auto& keys = t.index().meta().attr_keys;
  return std::find(keys.begin(), keys.end(), "function") != keys.end();
}
}  // namespace

Result<std::unique_ptr<CallWalker>> CallWalker::create(std::shared_ptr<const Trace> t, CallQuery q) {
  if (!t) return make_error("calls", "no trace");
  if (auto w = make_window(*t, q.window.from, q.window.to); !w) return w.error();
  if (is_function_event_trace(*t)) return make_xray_call_walker(std::move(t), std::move(q));
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

namespace ttd::query {

std::optional<std::string> incomplete_reason(const Trace& t, const CallStats& s) {
  if (s.unclassified_steps == 0) return std::nullopt;
  std::string why = std::to_string(s.unclassified_steps) + " steps at " + std::to_string(s.pcs_unknown) +
                    " pcs have no code bytes (code bytes: " + t.code_source() +
                    "); calls and returns there were guessed from link-register and stack writes, so calls may be missing";
  if (!t.program()) why += "; give the program's ELF with --program";
  return why;
}

std::string incomplete_json(const Trace& t, const CallStats& s) {
  auto why = incomplete_reason(t, s);
  if (!why) return "";
  nlohmann::json j;
  j["incomplete"] = {{"reason", *why}, {"unclassified_steps", s.unclassified_steps}, {"unknown_pcs", s.pcs_unknown}};
  return j.dump();
}

}  // namespace ttd::query
