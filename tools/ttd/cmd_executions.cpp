// ttd executions TRACE --pc ADDR[:LEN]: the steps that ran a pc (or any pc
// of a range) between two EIDs, optionally one per window of N EIDs.
#include <iostream>

#include "engine/query/executions.h"
#include "engine/query/query_json.h"
#include "engine/query/query_text.h"
#include "tools/ttd/commands.h"
#include "tools/ttd/trace_options.h"
#include "tools/ttd/usage_error.h"

namespace ttd::cli {

namespace {

struct ExecutionsOptions {
  TraceOptions trace;
  std::string pc, thread, resolution;
  query::WindowArgs window;
  size_t limit = 0;
  bool json = false, count = false;
};

int run_executions(const ExecutionsOptions& o) {
  auto pcs = query::parse_pc_range(o.pc);
  if (!pcs) return usage_error("executions", pcs.error().to_string());
  query::ExecutionQuery q;
  q.pc_lo = pcs->first;
  q.pc_hi = pcs->second;
  if (!o.thread.empty()) {
    auto t = query::parse_number(o.thread, "--thread");
    if (!t) return usage_error("executions", t.error().to_string());
    q.tid = *t;
  }
  if (!o.resolution.empty()) {
    auto r = query::parse_number(o.resolution, "--resolution");
    if (!r) return usage_error("executions", r.error().to_string());
    if (*r == 0) return usage_error("executions", "--resolution: must be at least 1 (EIDs per window)");
    q.resolution = *r;
  }
  auto t = open_trace_or_report(o.trace);
  if (!t) return 1;
  auto start = query::resolve_window_args(*t, o.window);
  if (!start) return usage_error("executions", start.error().to_string());
  q.start = *start;
  size_t n = 0;
  std::string last;
  Status s = query::scan_executions(*t, q, [&](const query::Execution& e) {
    if (!o.count) std::cout << (o.json ? query::to_json(e, &t->symbolizer()) : query::to_text(e, &t->symbolizer())) << "\n";
    last = to_string(e.next);
    ++n;  // counted with or without a limit (--count prints it)
    return o.limit == 0 || n < o.limit;
  });
  if (!s) {
    std::cerr << "ttd executions: " << s.error().to_string() << "\n";
    return 1;
  }
  if (o.count) {
    std::cout << (o.json ? "{\"count\":" + std::to_string(n) + "}" : std::to_string(n) + " executions") << "\n";
    return 0;
  }
  if (!o.json && o.limit && n == o.limit) std::cout << "(limit reached; continue with --resume " << last << ")\n";
  if (!o.json && last.empty()) std::cout << "no executions\n";
  return 0;
}

}  // namespace

void add_executions_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<ExecutionsOptions>();
  auto* sub = app.add_subcommand("executions", "the steps that ran a pc (or a pc range), from the index");
  add_trace_options(*sub, o->trace);
  sub->add_option("--pc", o->pc, "pc ADDR, or a range ADDR:LEN")->required();
  sub->add_option("--at", o->window.at, "EID to start from (forwards: from it; backwards: before it)");
  sub->add_option("--from", o->window.from, "lowest EID of the window (default 0)");
  sub->add_option("--to", o->window.to, "end of the window, exclusive (default: the step count)");
  sub->add_flag("--backward", o->window.backward, "walk from the end of the window towards its start");
  sub->add_option("--resume", o->window.resume, "continue after a hit: its \"next\" token");
  sub->add_option("--resolution", o->resolution, "at most one hit per window of N EIDs (a timeline)");
  sub->add_option("--thread", o->thread, "only this thread");
  sub->add_option("--limit", o->limit, "stop after N hits (default: all)");
  sub->add_flag("--count", o->count, "print only how many executions there are (up to --limit)");
  sub->add_flag("--json", o->json, "JSON Lines: one object per hit");
  sub->callback([o, &run] { run = [o] { return run_executions(*o); }; });
}

}  // namespace ttd::cli
