// ttd calls TRACE: the calls of a run with entry and exit EIDs and return
// values, as an indented tree (or JSON Lines), from call/return pairing
// (instruction traces) or XRay's function events. A walk that met steps
// without code bytes says so: a warning on stderr and, with --json, a last
// line {"incomplete": {...}}, instead of a silently short list.
#include <iostream>

#include "engine/query/calls.h"
#include "engine/query/query_json.h"
#include "engine/query/query_text.h"
#include "tools/ttd/commands.h"
#include "tools/ttd/trace_options.h"
#include "tools/ttd/usage_error.h"

namespace ttd::cli {

namespace {

struct CallsOptions {
  TraceOptions trace;
  std::string function, thread, from, to, order = "entry";
  int depth = -1;
  size_t limit = 0;
  bool json = false, stats = false;
};

int run_calls(const CallsOptions& o) {
  query::CallQuery q;
  if (!o.function.empty()) {
    auto f = query::parse_number(o.function, "--function");
    if (!f) return usage_error("calls", f.error().to_string());
    q.function = *f;
  }
  if (!o.thread.empty()) {
    auto t = query::parse_number(o.thread, "--thread");
    if (!t) return usage_error("calls", t.error().to_string());
    q.tid = *t;
  }
  if (o.depth >= 0) q.max_depth = uint32_t(o.depth);
  if (o.order == "exit")
    q.order = query::CallOrder::Exit;
  else if (o.order != "entry")
    return usage_error("calls", "--order: expected entry or exit, got '" + o.order + "'");
  auto t = open_trace_or_report(o.trace);
  if (!t) return 1;
  query::WindowArgs wa;
  wa.from = o.from;
  wa.to = o.to;
  auto start = query::resolve_window_args(*t, wa);
  if (!start) return usage_error("calls", start.error().to_string());
  q.window = start->window;
  auto walker = query::CallWalker::create(t, q);
  if (!walker) return usage_error("calls", walker.error().to_string());
  if (t->program()) std::cerr << "ttd calls: code bytes from " << t->code_source() << "\n";
  size_t n = 0;
  for (;;) {
    auto c = (*walker)->next();
    if (!c) {
      std::cerr << "ttd calls: " << c.error().to_string() << "\n";
      return 1;
    }
    if (!*c) break;
    std::cout << (o.json ? query::to_json(**c, &t->symbolizer()) : query::to_text(**c, &t->symbolizer())) << "\n";
    if (o.limit && ++n >= o.limit) break;
  }
  const auto& st = (*walker)->stats();
  if (auto why = query::incomplete_reason(*t, st)) {
    if (o.json) std::cout << query::incomplete_json(*t, st) << "\n";
    std::cout.flush();
    std::cerr << "ttd calls: warning: incomplete: " << *why << "\n";
  }
  if (o.stats) {
    std::cout.flush();
    const auto& s = st;
    std::cerr << "calls seen " << s.calls << ", orphan returns " << s.orphan_returns << ", chunks decoded "
              << s.chunks_decoded << ", skipped " << s.chunks_skipped << ", pcs classified " << s.pcs_classified
              << " (" << s.pcs_unknown << " without code bytes, " << s.pcs_from_program
              << " from the program), steps without code bytes " << s.unclassified_steps << "\n";
  }
  return 0;
}

}  // namespace

void add_calls_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<CallsOptions>();
  auto* sub = app.add_subcommand("calls", "calls with entry/exit EIDs and return values (call tree)");
  add_trace_options(*sub, o->trace);
  sub->add_option("--function", o->function, "only calls of this function (entry pc, or XRay function id)");
  sub->add_option("--thread", o->thread, "only this thread");
  sub->add_option("--depth", o->depth, "only calls at most this deep (0 = outermost)");
  sub->add_option("--from", o->from, "only calls entered at or after this EID (default 0)");
  sub->add_option("--to", o->to, "only calls entered before this EID (default: the step count)");
  sub->add_option("--order", o->order, "entry (a tree, default) or exit (as calls return)");
  sub->add_option("--limit", o->limit, "stop after N calls");
  sub->add_flag("--stats", o->stats, "print what the walk did to stderr");
  sub->add_flag("--json", o->json, "JSON Lines: one object per call");
  sub->callback([o, &run] { run = [o] { return run_calls(*o); }; });
}

}  // namespace ttd::cli
