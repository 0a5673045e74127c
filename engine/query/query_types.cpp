#include "engine/query/query_types.h"

#include <charconv>

#include "engine/trace.h"

namespace ttd::query {

namespace {
bool parse_number(std::string_view s, uint64_t& out) {
  if (s.empty()) return false;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  auto r = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}
}  // namespace

std::string to_string(const ResumeToken& t) {
  return t.skip ? std::to_string(t.eid) + "+" + std::to_string(t.skip) : std::to_string(t.eid);
}

Result<ResumeToken> parse_resume_token(const std::string& s) {
  ResumeToken t;
  auto plus = s.find('+');
  uint64_t skip = 0;
  bool ok = parse_number(std::string_view(s).substr(0, plus), t.eid);
  if (ok && plus != std::string::npos) ok = parse_number(std::string_view(s).substr(plus + 1), skip) && skip < (1ull << 32);
  if (!ok) return make_error("resume token", "expected EID or EID+SKIP (as printed in a hit's \"next\"), got '" + s + "'");
  t.skip = uint32_t(skip);
  return t;
}

Status check_position(const Trace& t, uint64_t eid, const std::string& what) {
  uint64_t n = t.step_count();
  if (eid > n)
    return make_error(what, "EID " + std::to_string(eid) + " is out of range (the trace has " + std::to_string(n) +
                                " steps, positions 0.." + std::to_string(n) + ")");
  return {};
}

Result<EidWindow> make_window(const Trace& t, std::optional<uint64_t> from, std::optional<uint64_t> to) {
  EidWindow w{from.value_or(0), to.value_or(t.step_count())};
  if (from)
    if (auto s = check_position(t, *from, "from"); !s) return s.error();
  if (to)
    if (auto s = check_position(t, *to, "to"); !s) return s.error();
  if (w.from > w.to)
    return make_error("window", "reversed EID window: from " + std::to_string(w.from) + " is after to " + std::to_string(w.to));
  if (w.from == w.to)
    return make_error("window", "empty EID window [" + std::to_string(w.from) + ", " + std::to_string(w.to) +
                                    "): it holds no step" + (t.step_count() == 0 ? " (the trace has no steps)" : ""));
  return w;
}

Result<AddressRange> make_range(uint64_t addr, uint64_t len, const std::string& what) {
  if (len == 0) return make_error(what, "empty address range (length 0)");
  if (addr + len < addr && addr + len != 0)  // [addr, 2^64) is allowed, nothing past it
    return make_error(what, "address range overflows: start " + std::to_string(addr) + " + length " + std::to_string(len) +
                                " passes the end of the address space");
  return AddressRange{addr, len};
}

Result<QueryStart> resolve_window(const Trace& t, std::optional<uint64_t> from, std::optional<uint64_t> to,
                                  std::optional<uint64_t> at, bool backward, std::optional<ResumeToken> resume) {
  if (at) {
    if (auto s = check_position(t, *at, "at"); !s) return s.error();
    std::optional<uint64_t>& end = backward ? to : from;
    if (end)
      return make_error("at", std::string("give the starting EID or the window's ") + (backward ? "end" : "start") +
                                  " for a " + (backward ? "backward" : "forward") + " query, not both");
    end = at;
  }
  auto w = make_window(t, from, to);
  if (!w) {
    Error e = w.error();
    if (at && e.where == (backward ? "to" : "from")) e.where = "at";
    return e;
  }
  QueryStart q;
  q.window = *w;
  q.direction = backward ? Direction::Backward : Direction::Forward;
  if (resume) {
    if (resume->eid < w->from || resume->eid >= w->to)
      return make_error("resume", "token EID " + std::to_string(resume->eid) + " lies outside the query's window [" +
                                      std::to_string(w->from) + ", " + std::to_string(w->to) + ")");
    q.resume = resume;
  }
  return q;
}

namespace {
Error outside(const ResumeToken& t, const EidWindow& w) {
  return make_error("resume token", "EID " + std::to_string(t.eid) + " lies outside the query's window [" +
                                        std::to_string(w.from) + ", " + std::to_string(w.to) + ")");
}
}  // namespace

Result<ScanPlan> plan_scan(const Trace& t, const QueryStart& q) {
  const EidWindow& w = q.window;
  if (auto v = make_window(t, w.from, w.to); !v) return v.error();
  ScanPlan p;
  if (q.direction == Direction::Forward) {
    p.first = w.from;
    p.last = w.to - 1;
  } else {
    p.first = w.to - 1;
    p.last = w.from;
  }
  if (q.resume) {
    if (q.resume->eid < w.from || q.resume->eid >= w.to) return outside(*q.resume, w);
    p.first = q.resume->eid;
    p.skip = q.resume->skip;
  }
  return p;
}

}  // namespace ttd::query
