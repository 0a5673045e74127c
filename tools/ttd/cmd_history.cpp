// ttd history TRACE --mem ADDR:LEN | --reg NAME: the accesses to a memory
// range, or the writes of a register, from an EID forwards or backwards,
// answered from the index's chunk summaries (engine/query).
#include <iostream>

#include "engine/query/memory_history.h"
#include "engine/query/query_json.h"
#include "engine/query/query_text.h"
#include "engine/query/register_history.h"
#include "tools/ttd/commands.h"
#include "tools/ttd/trace_options.h"
#include "tools/ttd/usage_error.h"

namespace ttd::cli {

namespace {

struct HistoryOptions {
  TraceOptions trace;
  std::string mem, reg, kind = "rw", thread;
  query::WindowArgs window;
  size_t limit = 0;
  bool json = false;
};

// Prints hits as the scan finds them and, at the end, how to go on.
struct HitPrinter {
  bool json = false;
  size_t limit = 0, count = 0;
  std::string last_next;

  // Returns whether the scan should go on.
  bool print(const std::string& line, const query::ResumeToken& next) {
    std::cout << line << "\n";
    last_next = to_string(next);
    return limit == 0 || ++count < limit;
  }
  int finish(const Status& s) {
    if (!s) {
      std::cout.flush();
      std::cerr << "ttd history: " << s.error().to_string() << "\n";
      return 1;
    }
    if (!json && limit && count == limit) std::cout << "(limit reached; continue with --resume " << last_next << ")\n";
    if (!json && last_next.empty()) std::cout << "no hits\n";
    return 0;
  }
};

int run_history(const HistoryOptions& o) {
  if (o.mem.empty() == o.reg.empty()) return usage_error("history", "give exactly one of --mem ADDR:LEN or --reg NAME");
  std::optional<query::AddressRange> range;
  query::AccessFilter filter = query::AccessFilter::Access;
  if (!o.mem.empty()) {
    auto r = query::parse_address_range(o.mem);
    if (!r) return usage_error("history", r.error().to_string());
    range = *r;
    auto k = query::parse_access_filter(o.kind);
    if (!k) return usage_error("history", "--kind: " + k.error().message);
    filter = *k;
  }
  std::optional<uint64_t> tid;
  if (!o.thread.empty()) {
    auto t = query::parse_number(o.thread, "--thread");
    if (!t) return usage_error("history", t.error().to_string());
    tid = *t;
  }
  auto t = open_trace_or_report(o.trace);
  if (!t) return 1;
  auto start = query::resolve_window_args(*t, o.window);
  if (!start) return usage_error("history", start.error().to_string());

  HitPrinter out;
  out.json = o.json;
  out.limit = o.limit;
  if (range) {
    query::MemoryQuery q;
    q.range = *range;
    q.kind = filter;
    q.start = *start;
    q.tid = tid;
    Status s = query::scan_memory_accesses(*t, q, [&](const query::MemoryAccessView& v) {
      query::MemoryAccess a{v.eid, v.tid, v.pid, v.pc, v.kind, v.addr, v.size, std::nullopt, v.next};
      if (v.value) a.value.emplace(v.value, v.value + v.size);
      return out.print(o.json ? query::to_json(a, &t->symbolizer()) : query::to_text(a, &t->symbolizer()), a.next);
    });
    return out.finish(s);
  }

  auto reg = query::resolve_register(*t, o.reg);
  if (!reg) return usage_error("history", "--reg: " + reg.error().message);
  query::RegisterQuery q;
  q.reg = *reg;
  q.start = *start;
  q.tid = tid;
  Status s = query::scan_register_writes(*t, q, [&](const query::RegisterWrite& w) {
    return out.print(o.json ? query::to_json(*t, w, &t->symbolizer()) : query::to_text(*t, w, &t->symbolizer()), w.next);
  });
  return out.finish(s);
}

}  // namespace

void add_history_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<HistoryOptions>();
  auto* sub = app.add_subcommand("history", "accesses to a memory range, or writes of a register, from the index");
  add_trace_options(*sub, o->trace);
  sub->add_option("--mem", o->mem, "memory range ADDR:LEN (decimal or 0x-hex)");
  sub->add_option("--reg", o->reg, "register name (gdb's names)");
  sub->add_option("--kind", o->kind, "memory accesses to report: r, w or rw (default rw)");
  sub->add_option("--at", o->window.at, "EID to start from (forwards: from it; backwards: before it)");
  sub->add_option("--from", o->window.from, "lowest EID of the window (default 0)");
  sub->add_option("--to", o->window.to, "end of the window, exclusive (default: the step count)");
  sub->add_flag("--backward", o->window.backward, "walk from the end of the window towards its start");
  sub->add_option("--resume", o->window.resume, "continue after a hit: its \"next\" token");
  sub->add_option("--thread", o->thread, "only this thread (memory: steps of it; registers: its registers)");
  sub->add_option("--limit", o->limit, "stop after N hits (default: all)");
  sub->add_flag("--json", o->json, "JSON Lines: one object per hit");
  sub->callback([o, &run] { run = [o] { return run_history(*o); }; });
}

}  // namespace ttd::cli
