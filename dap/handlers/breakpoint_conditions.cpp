#include "dap/handlers/breakpoint_conditions.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ttd::dap {

namespace {

std::string trimmed(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Whether the condition holds at the current position: its value is not
// zero. Evaluated as !!(condition), an int 0 or 1, so any scalar works.
Result<bool> condition_holds(Debuggee& d, const std::string& condition, uint64_t tid) {
  auto r = d.evaluate("!!(" + condition + ")", tid, 0);
  if (!r) return r.error();
  return r->value != "0";
}

}  // namespace

Result<HitCondition> parse_hit_condition(const std::string& text) {
  std::string t = trimmed(text);
  HitCondition h;
  using Op = HitCondition::Op;
  static const std::pair<const char*, Op> ops[] = {{">=", Op::AtLeast}, {"<=", Op::LessEqual}, {"==", Op::Equal},
                                                   {">", Op::Greater},  {"<", Op::Less},        {"%", Op::Multiple},
                                                   {"=", Op::Equal}};
  size_t at = 0;
  for (const auto& [tok, op] : ops) {
    std::string_view k(tok);
    if (t.compare(0, k.size(), k) == 0) {
      h.op = op;
      at = k.size();
      break;
    }
  }
  while (at < t.size() && std::isspace(static_cast<unsigned char>(t[at]))) ++at;
  const char* b = t.data() + at;
  const char* e = t.data() + t.size();
  auto r = std::from_chars(b, e, h.n, 10);
  if (b == e || r.ec != std::errc() || r.ptr != e)
    return make_error("hitCondition", "expected a hit count such as \"3\" (the 3rd hit on), \"== 3\", \">= 3\", \"> 3\", "
                                      "\"< 3\", \"<= 3\" or \"% 3\" (every 3rd), got '" + text + "'");
  if (h.op == Op::Multiple && h.n == 0) return make_error("hitCondition", "'% 0': the divisor must not be 0");
  return h;
}

bool hit_condition_met(const HitCondition& h, uint64_t hits) {
  using Op = HitCondition::Op;
  switch (h.op) {
    case Op::AtLeast: return hits >= h.n;
    case Op::Equal: return hits == h.n;
    case Op::Greater: return hits > h.n;
    case Op::Less: return hits < h.n;
    case Op::LessEqual: return hits <= h.n;
    case Op::Multiple: return h.n && hits % h.n == 0;
  }
  return true;
}

Status read_breakpoint_options(const json& client_bp, Debuggee& d, BreakpointRecord& b) {
  auto cond = opt_string(client_bp, "condition");
  if (!cond) return cond.error();
  auto hit = opt_string(client_bp, "hitCondition");
  if (!hit) return hit.error();
  auto log = opt_string(client_bp, "logMessage");
  if (!log) return log.error();
  b.condition = trimmed(cond->value_or(""));
  b.log_message = log->value_or("");
  std::string problem;
  if (!b.condition.empty())
    if (auto s = d.check_expression(b.condition); !s) problem = "condition '" + b.condition + "': " + s.error().message;
  if (std::string h = trimmed(hit->value_or("")); !h.empty()) {
    auto hc = parse_hit_condition(h);
    if (hc) b.hit_condition = *hc;
    else if (problem.empty()) problem = hc.error().message;
  }
  if (!problem.empty()) {
    b.addrs.clear();
    b.message = problem;
  }
  return {};
}

std::vector<BreakpointRecord*> all_breakpoints(SessionState& s) {
  std::vector<BreakpointRecord*> out;
  for (auto& [path, v] : s.source_breakpoints)
    for (auto& b : v) out.push_back(&b);
  for (auto& b : s.function_breakpoints) out.push_back(&b);
  for (auto& b : s.instruction_breakpoints) out.push_back(&b);
  return out;
}

BreakpointVerdict judge_breakpoint_stop(SessionState& s, uint64_t pc, uint64_t tid) {
  BreakpointVerdict v;
  Debuggee& d = *s.debuggee;
  for (BreakpointRecord* b : all_breakpoints(s)) {
    if (std::find(b->addrs.begin(), b->addrs.end(), pc) == b->addrs.end()) continue;
    if (!b->condition.empty()) {
      auto holds = condition_holds(d, b->condition, tid);
      if (!holds) {
        v.stop = true;
        v.ids.push_back(b->id);
        v.problem = "breakpoint " + std::to_string(b->id) + ": condition '" + b->condition +
                    "' could not be evaluated: " + holds.error().message;
        continue;
      }
      if (!*holds) continue;
    }
    ++b->hits;
    if (b->hit_condition && !hit_condition_met(*b->hit_condition, b->hits)) continue;
    if (!b->log_message.empty()) {
      v.log_lines.push_back(interpolate_log_message(b->log_message, d, tid));
      continue;
    }
    v.stop = true;
    v.ids.push_back(b->id);
  }
  return v;
}

std::string interpolate_log_message(const std::string& message, Debuggee& d, uint64_t tid) {
  std::string out;
  for (size_t i = 0; i < message.size();) {
    char c = message[i];
    if ((c == '{' || c == '}') && i + 1 < message.size() && message[i + 1] == c) {
      out += c;
      i += 2;
      continue;
    }
    if (c != '{') {
      out += c;
      ++i;
      continue;
    }
    size_t close = message.find('}', i + 1);
    if (close == std::string::npos) {  // an unmatched brace is text
      out += message.substr(i);
      break;
    }
    std::string expr = trimmed(message.substr(i + 1, close - i - 1));
    auto r = d.evaluate(expr, tid, 0);
    out += r ? r->value : "<error: " + r.error().message + ">";
    i = close + 1;
  }
  return out;
}

}  // namespace ttd::dap
