#include "tools/ttd/query_monitor.h"

#include "engine/query/calls.h"
#include "engine/query/executions.h"
#include "engine/query/memory_history.h"
#include "engine/query/query_json.h"
#include "engine/query/query_text.h"
#include "engine/query/register_history.h"
#include "engine/query/value_search.h"
#include "tools/ttd/monitor_args.h"
#include "tools/ttd/origin_monitor.h"

namespace ttd::cli {

namespace {

// Enough to answer "who touched this last?" without scrolling a console
// away; --limit N asks for more, --limit 0 for all.
constexpr uint64_t kDefaultLimit = 16;
constexpr uint64_t kDefaultCallLimit = 64;

// Where a command streams its lines and what it polls to stop early.
struct Io {
  const gdb::MonitorOutput& out;
  const InterruptCheck& interrupted;
};

gdb::MonitorReply failure(const std::string& command, const Error& e) {
  std::string text = e.to_string();
  // Errors about the command line already start with the command's name.
  if (!text.starts_with(command + ":")) text = command + ": " + text;
  return {"error: " + text + "\n", false};
}

// Streams hit lines as the CLI prints them, then the same closing line.
struct HitText {
  HitText(const gdb::MonitorOutput& sink, bool json_lines, uint64_t max_hits)
      : out(sink), json(json_lines), limit(max_hits) {}
  const gdb::MonitorOutput& out;
  bool json = false;
  uint64_t limit = 0, count = 0;
  std::string last_next;
  bool refused = false;  // the client interrupted or went away

  bool add(const std::string& line, const query::ResumeToken& next) {
    last_next = to_string(next);
    ++count;
    if (!out(line + "\n")) return refused = true, false;
    return limit == 0 || count < limit;
  }
  std::string finish(const std::string& none) const {
    std::string s;
    if (refused) return json ? s : "(interrupted; continue with --resume " + last_next + ")\n";
    if (!json && limit && count == limit) s += "(limit reached; continue with --resume " + last_next + ")\n";
    if (!json && last_next.empty()) s += none + "\n";
    return s;
  }
};

Result<uint64_t> limit_of(const MonitorArgs& a, uint64_t fallback) {
  if (!a.has("--limit")) return fallback;
  return query::parse_number(a.option("--limit"), "--limit");
}

Result<std::optional<uint64_t>> thread_of(const MonitorArgs& a) {
  if (!a.has("--thread")) return std::optional<uint64_t>();
  auto t = query::parse_number(a.option("--thread"), "--thread");
  if (!t) return t.error();
  return std::optional<uint64_t>(*t);
}

// Window arguments as the CLI takes them, except that a query with neither
// --at nor the bound it starts from starts here: backwards (the default of
// history) it looks at the steps before the current position, forwards at
// the steps from it on.
query::WindowArgs window_from_here(const MonitorArgs& a, uint64_t here, bool default_backward) {
  query::WindowArgs w;
  w.from = a.option("--from");
  w.to = a.option("--to");
  w.at = a.option("--at");
  w.resume = a.option("--resume");
  w.backward = a.flag("--backward") || (default_backward && !a.flag("--forward"));
  bool bound_given = w.backward ? a.has("--to") : a.has("--from");
  if (w.at.empty() && !bound_given) w.at = std::to_string(here);
  return w;
}

// Backwards from the start of the trace (or forwards from its end) there
// is nothing to look at: an answer, not an error, when the user gave no
// window and only stands there.
bool nothing_beyond_here(const Trace& t, const MonitorArgs& a, uint64_t here, bool default_backward) {
  if (a.has("--at") || a.has("--from") || a.has("--to") || a.has("--resume")) return false;
  bool backward = a.flag("--backward") || (default_backward && !a.flag("--forward"));
  return backward ? here == 0 : here == t.step_count();
}

const std::set<std::string> kWindowOptions = {"--at", "--from", "--to", "--resume", "--limit", "--thread"};

// --- history ------------------------------------------------------------

gdb::MonitorReply register_history(const Trace& t, uint64_t here, const MonitorArgs& a, const std::string& name,
                                   const Io& io) {
  const std::string cmd = "history";
  auto reg = query::resolve_register(t, name);
  if (!reg) return failure(cmd, make_error("--reg", reg.error().message));
  auto tid = thread_of(a);
  if (!tid) return failure(cmd, tid.error());
  bool listing = a.flag("--backward") || a.flag("--forward") || a.has("--limit") || a.has("--from") ||
                 a.has("--to") || a.has("--at") || a.has("--resume");
  if (!listing) {
    // The question a debugger user asks: where did the value I see come
    // from, and when does it change next?
    if (auto s = query::check_position(t, here, "eid"); !s) return failure(cmd, s.error());
    auto prev = query::previous_register_write(t, *reg, here, *tid, io.interrupted);
    if (!prev) return failure(cmd, prev.error());
    auto next = query::next_register_write(t, *reg, here, *tid, io.interrupted);
    if (!next) return failure(cmd, next.error());
    bool json = a.flag("--json");
    auto line = [&](const char* label, const std::optional<query::RegisterWrite>& w, const std::string& none) {
      if (json) return std::string(w ? query::to_json(t, *w, &t.symbolizer()) : "null") + "\n";
      return std::string(label) + (w ? query::to_text(t, *w, &t.symbolizer()) : none) + "\n";
    };
    return {line("previous: ", *prev, "no write before EID " + std::to_string(here)) +
            line("next:     ", *next, "no write at or after EID " + std::to_string(here))};
  }
  auto limit = limit_of(a, kDefaultLimit);
  if (!limit) return failure(cmd, limit.error());
  if (nothing_beyond_here(t, a, here, true)) return {a.flag("--json") ? "" : "no hits\n"};
  auto start = query::resolve_window_args(t, window_from_here(a, here, true));
  if (!start) return failure(cmd, start.error());
  query::RegisterQuery q;
  q.reg = *reg;
  q.start = *start;
  q.tid = *tid;
  q.cancel = io.interrupted;
  HitText out{io.out, a.flag("--json"), *limit};
  Status s = query::scan_register_writes(t, q, [&](const query::RegisterWrite& w) {
    return out.add(out.json ? query::to_json(t, w, &t.symbolizer()) : query::to_text(t, w, &t.symbolizer()), w.next);
  });
  if (!s) return failure(cmd, s.error());
  return {out.finish("no hits")};
}

// ADDR:LEN, or ADDR [LEN] (a LEN starts with a digit: the kinds do not);
// `used` says how many words it took.
Result<query::AddressRange> memory_range(const std::vector<std::string>& p, size_t& used) {
  used = 1;
  if (p[0].find(':') != std::string::npos) return query::parse_address_range(p[0], "ADDR:LEN");
  auto addr = query::parse_number(p[0], "ADDR");
  if (!addr) return addr.error();
  uint64_t len = 1;
  if (p.size() > 1 && !p[1].empty() && p[1][0] >= '0' && p[1][0] <= '9') {
    auto l = query::parse_number(p[1], "LEN");
    if (!l) return l.error();
    len = *l;
    used = 2;
  }
  return query::make_range(*addr, len, "ADDR LEN");
}

// The range, then an optional kind.
Result<std::pair<query::AddressRange, query::AccessFilter>> memory_target(const std::vector<std::string>& p) {
  if (p.empty()) return make_error("history", "give ADDR [LEN] [r|w|rw], ADDR:LEN or --reg NAME (see monitor help)");
  size_t used = 0;
  auto range = memory_range(p, used);
  if (!range) return range.error();
  query::AccessFilter kind = query::AccessFilter::Access;
  if (p.size() > used) {
    auto k = query::parse_access_filter(p[used]);
    if (!k) return make_error("kind", k.error().message);
    kind = *k;
    ++used;
  }
  if (p.size() > used) return make_error("history", "unexpected argument '" + p[used] + "' (see monitor help)");
  return std::make_pair(*range, kind);
}

gdb::MonitorReply history(const Trace& t, uint64_t here, std::string_view text, const std::string& reg_verb,
                          const Io& io) {
  const std::string cmd = "history";
  MonitorSyntax syntax{kWindowOptions, {"--backward", "--forward", "--json"}, reg_verb.empty() ? 3u : 1u};
  if (reg_verb.empty()) syntax.options.insert("--reg");
  auto a = parse_monitor_args(text, syntax, reg_verb.empty() ? cmd : reg_verb);
  if (!a) return failure(cmd, a.error());
  if (a->flag("--backward") && a->flag("--forward")) return failure(cmd, make_error(cmd, "give --backward or --forward, not both"));
  if (!reg_verb.empty()) {
    if (a->positional.empty()) return failure(cmd, make_error(reg_verb, "give a register NAME"));
    return register_history(t, here, *a, a->positional[0], io);
  }
  if (a->has("--reg")) {
    if (!a->positional.empty()) return failure(cmd, make_error(cmd, "give either ADDR [LEN] or --reg NAME, not both"));
    return register_history(t, here, *a, a->option("--reg"), io);
  }
  auto target = memory_target(a->positional);
  if (!target) return failure(cmd, target.error());
  auto limit = limit_of(*a, kDefaultLimit);
  if (!limit) return failure(cmd, limit.error());
  auto tid = thread_of(*a);
  if (!tid) return failure(cmd, tid.error());
  if (nothing_beyond_here(t, *a, here, true)) return {a->flag("--json") ? "" : "no hits\n"};
  auto start = query::resolve_window_args(t, window_from_here(*a, here, true));
  if (!start) return failure(cmd, start.error());
  query::MemoryQuery q;
  q.range = target->first;
  q.kind = target->second;
  q.start = *start;
  q.tid = *tid;
  q.cancel = io.interrupted;
  HitText out{io.out, a->flag("--json"), *limit};
  Status s = query::scan_memory_accesses(t, q, [&](const query::MemoryAccessView& v) {
    query::MemoryAccess m{v.eid, v.tid, v.pid, v.pc, v.kind, v.addr, v.size, std::nullopt, v.next};
    if (v.value) m.value.emplace(v.value, v.value + v.size);
    return out.add(out.json ? query::to_json(m, &t.symbolizer()) : query::to_text(m, &t.symbolizer()), m.next);
  });
  if (!s) return failure(cmd, s.error());
  return {out.finish("no hits")};
}

// --- executions -----------------------------------------------------------

gdb::MonitorReply executions(const Trace& t, std::string_view text, const Io& io) {
  const std::string cmd = "executions";
  MonitorSyntax syntax{kWindowOptions, {"--backward", "--json", "--count"}, 3};
  syntax.options.insert("--resolution");
  auto a = parse_monitor_args(text, syntax, cmd);
  if (!a) return failure(cmd, a.error());
  const auto& p = a->positional;
  if (p.empty()) return failure(cmd, make_error(cmd, "give a PC or PC:LEN, and optionally FROM TO (see monitor help)"));
  if (p.size() == 2) return failure(cmd, make_error(cmd, "give both FROM and TO, or neither"));
  auto pcs = query::parse_pc_range(p[0], "PC");
  if (!pcs) return failure(cmd, pcs.error());
  query::ExecutionQuery q;
  q.pc_lo = pcs->first;
  q.pc_hi = pcs->second;
  auto tid = thread_of(*a);
  if (!tid) return failure(cmd, tid.error());
  q.tid = *tid;
  if (a->has("--resolution")) {
    auto r = query::parse_number(a->option("--resolution"), "--resolution");
    if (!r) return failure(cmd, r.error());
    if (*r == 0) return failure(cmd, make_error("--resolution", "must be at least 1 (EIDs per window)"));
    q.resolution = *r;
  }
  auto limit = limit_of(*a, a->flag("--count") ? 0 : kDefaultLimit);
  if (!limit) return failure(cmd, limit.error());
  // Unlike history, the default window is the whole trace: "when did this
  // code run?" is asked of the run, not of the steps after here.
  query::WindowArgs w;
  w.from = p.size() == 3 ? p[1] : a->option("--from");
  w.to = p.size() == 3 ? p[2] : a->option("--to");
  if (p.size() == 3 && (a->has("--from") || a->has("--to")))
    return failure(cmd, make_error(cmd, "give FROM TO or --from/--to, not both"));
  w.at = a->option("--at");
  w.resume = a->option("--resume");
  w.backward = a->flag("--backward");
  auto start = query::resolve_window_args(t, w);
  if (!start) return failure(cmd, start.error());
  q.start = *start;
  q.cancel = io.interrupted;
  HitText out{io.out, a->flag("--json"), *limit};
  bool count_only = a->flag("--count");
  uint64_t counted = 0;
  Status s = query::scan_executions(t, q, [&](const query::Execution& e) {
    if (count_only) return ++counted, *limit == 0 || counted < *limit;
    return out.add(out.json ? query::to_json(e, &t.symbolizer()) : query::to_text(e, &t.symbolizer()), e.next);
  });
  if (!s) return failure(cmd, s.error());
  if (count_only)
    return {out.json ? "{\"count\":" + std::to_string(counted) + "}\n" : std::to_string(counted) + " executions\n"};
  return {out.finish("no executions")};
}

// --- calls ----------------------------------------------------------------

gdb::MonitorReply calls(const std::shared_ptr<const Trace>& t, std::string_view text, const Io& io) {
  const std::string cmd = "calls";
  MonitorSyntax syntax{{"--function", "--thread", "--depth", "--from", "--to", "--order", "--limit"}, {"--json"}, 0};
  auto a = parse_monitor_args(text, syntax, cmd);
  if (!a) return failure(cmd, a.error());
  query::CallQuery q;
  if (a->has("--function")) {
    auto f = query::parse_number(a->option("--function"), "--function");
    if (!f) return failure(cmd, f.error());
    q.function = *f;
  }
  auto tid = thread_of(*a);
  if (!tid) return failure(cmd, tid.error());
  q.tid = *tid;
  if (a->has("--depth")) {
    auto d = query::parse_number(a->option("--depth"), "--depth");
    if (!d) return failure(cmd, d.error());
    if (*d > UINT32_MAX) return failure(cmd, make_error("--depth", "too deep: " + a->option("--depth")));
    q.max_depth = uint32_t(*d);
  }
  std::string order = a->has("--order") ? a->option("--order") : "entry";
  if (order == "exit") q.order = query::CallOrder::Exit;
  else if (order != "entry") return failure(cmd, make_error("--order", "expected entry or exit, got '" + order + "'"));
  auto limit = limit_of(*a, kDefaultCallLimit);
  if (!limit) return failure(cmd, limit.error());
  query::WindowArgs w;
  w.from = a->option("--from");
  w.to = a->option("--to");
  auto start = query::resolve_window_args(*t, w);
  if (!start) return failure(cmd, start.error());
  q.window = start->window;
  q.cancel = io.interrupted;
  auto walker = query::CallWalker::create(t, q);
  if (!walker) return failure(cmd, walker.error());
  std::string out;
  uint64_t n = 0;
  bool more = false;
  for (;;) {
    auto c = (*walker)->next();
    if (!c) return failure(cmd, c.error());
    if (!*c) break;
    if (*limit && n == *limit) {
      more = true;
      break;
    }
    if (!io.out((a->flag("--json") ? query::to_json(**c, &t->symbolizer()) : query::to_text(**c, &t->symbolizer())) + "\n"))
      return {a->flag("--json") ? "" : "(interrupted after " + std::to_string(n) + " calls)\n"};
    ++n;
  }
  // Steps without code bytes: the list may be short, and the reply says so.
  const auto why = query::incomplete_reason(*t, (*walker)->stats());
  if (a->flag("--json")) return {why ? out + query::incomplete_json(*t, (*walker)->stats()) + "\n" : out};
  if (n == 0) out += "no calls\n";
  if (more) out += "(the first " + std::to_string(n) + " calls; --limit N for more, --from EID to start later)\n";
  if (why) out += "incomplete: " + *why + "\n";
  return {out};
}

// --- search ---------------------------------------------------------------

gdb::MonitorReply search(const std::shared_ptr<const Trace>& t, uint64_t here, std::string_view text, const Io& io) {
  const std::string cmd = "search";
  MonitorSyntax syntax{{"--at", "--in", "--from", "--to", "--limit", "--max-pattern"}, {"--first", "--json"}, 1};
  auto a = parse_monitor_args(text, syntax, cmd);
  if (!a) return failure(cmd, a.error());
  if (a->positional.empty()) return failure(cmd, make_error(cmd, "give the bytes to find as HEX (e.g. deadbeef)"));
  size_t max_pattern = query::kDefaultMaxPattern;
  if (a->has("--max-pattern")) {
    auto m = query::parse_number(a->option("--max-pattern"), "--max-pattern");
    if (!m) return failure(cmd, m.error());
    max_pattern = size_t(*m);
  }
  auto pattern = query::parse_hex_bytes(a->positional[0]);
  if (!pattern) return failure(cmd, make_error("HEX", pattern.error().message));
  if (auto s = query::check_pattern_size(pattern->size(), max_pattern); !s)
    return failure(cmd, make_error("HEX", s.error().message));
  std::optional<query::AddressRange> within;
  if (a->has("--in")) {
    auto r = query::parse_address_range(a->option("--in"), "--in");
    if (!r) return failure(cmd, r.error());
    within = *r;
  }
  bool json = a->flag("--json");
  if (a->flag("--first")) {
    if (a->has("--at")) return failure(cmd, make_error(cmd, "give --at EID (search in space) or --first (in time), not both"));
    query::WindowArgs w;
    w.from = a->option("--from");
    w.to = a->option("--to");
    auto start = query::resolve_window_args(*t, w);
    if (!start) return failure(cmd, start.error());
    query::TimeSearch q;
    q.pattern = *pattern;
    q.window = start->window;
    q.within = within;
    q.cancel = io.interrupted;
    q.max_pattern = max_pattern;
    auto r = query::first_appearance(t, q);
    if (!r) return failure(cmd, r.error());
    if (json) return {(*r ? query::to_json(**r) : std::string("null")) + "\n"};
    if (!*r) return {"never present in EIDs " + std::to_string(q.window.from) + ".." + std::to_string(q.window.to) + "\n"};
    const auto& ap = **r;
    std::string out = "first appears at EID " + std::to_string(ap.eid) + " at " + query::hex(ap.addr) + " (pid " +
                      std::to_string(ap.pid) + ")";
    out += ap.writer_eid ? ", completed by step " + std::to_string(*ap.writer_eid)
                         : std::string(", already present at the start of the window");
    return {out + "\n"};
  }
  if (a->has("--from") || a->has("--to")) return failure(cmd, make_error(cmd, "--from/--to go with --first"));
  uint64_t at = here;
  if (a->has("--at")) {
    auto v = query::parse_number(a->option("--at"), "--at");
    if (!v) return failure(cmd, v.error());
    at = *v;
  }
  if (auto s = query::check_position(*t, at, "--at"); !s) return failure(cmd, s.error());
  auto limit = limit_of(*a, kDefaultLimit);
  if (!limit) return failure(cmd, limit.error());
  query::SpaceSearch q{*pattern, at, within, std::nullopt, *limit};
  query::SearchControl control{io.interrupted, max_pattern};
  uint64_t found = 0;
  bool refused = false;
  Status s = query::scan_memory(t, q, [&](const query::ValueMatch& m) {
    ++found;
    refused = !io.out((json ? query::to_json(m) : query::hex(m.addr) + "  (pid " + std::to_string(m.pid) + ")") + "\n");
    return !refused;
  }, control);
  if (!s) return failure(cmd, s.error());
  if (json) return {};
  if (refused) return {"(interrupted after " + std::to_string(found) + " matches)\n"};
  if (found == 0) return {"not found at EID " + std::to_string(at) + "\n"};
  if (*limit && found == *limit) return {"(limit reached: the first " + std::to_string(*limit) + " matches)\n"};
  return {};
}

}  // namespace

std::optional<gdb::MonitorReply> run_query_monitor(const std::shared_ptr<const Trace>& trace, uint64_t here,
                                                   std::string_view verb, std::string_view args,
                                                   const gdb::MonitorOutput& out, const InterruptCheck& interrupted) {
  Io io{out, interrupted};
  if (verb == "history") return history(*trace, here, args, "", io);
  if (verb == "history-reg") return history(*trace, here, args, "history-reg", io);
  if (verb == "executions") return executions(*trace, args, io);
  if (verb == "calls") return calls(trace, args, io);
  if (verb == "search") return search(trace, here, args, io);
  if (verb == "origin") return origin_monitor(trace, here, args, interrupted);
  return std::nullopt;
}

std::string query_monitor_help() {
  return "history ADDR [LEN] [r|w|rw]\n"
         "                   accesses to [ADDR, ADDR+LEN) before here, newest first (also ADDR:LEN;\n"
         "                   LEN defaults to 1, the kind to rw); --forward: from here on\n"
         "history-reg NAME   the last write of a register before here and the next one from here\n"
         "                   (also history --reg NAME; with --backward/--forward/--limit: a list)\n"
         "executions PC[:LEN] [FROM TO]\n"
         "                   the steps that ran a pc (range) in [FROM, TO) (default: the whole trace);\n"
         "                   --resolution N (one hit per N EIDs), --count, --backward\n"
         "calls              the call tree with entry/exit EIDs and return values;\n"
         "                   --depth N, --function PC, --thread TID, --from/--to EID, --order entry|exit\n"
         "search HEX         where these bytes are in memory here (--in ADDR:LEN, --at EID);\n"
         "                   --first [--from EID --to EID]: when they first appear;\n"
         "                   patterns up to 4096 bytes (--max-pattern N for more)\n"
         "origin REG|ADDR:LEN [DEPTH]\n"
         "                   where the value here came from: the step that wrote it, its inputs and\n"
         "                   theirs (--depth N, --breadth N, --nodes N, --at EID, --json)\n"
         "                   history/executions/search/calls also take --limit N (default 16, calls 64;\n"
         "                   0 = all), --json; history/executions --at --from --to --resume --thread\n";
}

}  // namespace ttd::cli
