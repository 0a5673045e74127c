// ttd origin TRACE --at EID (--reg R | --mem ADDR:LEN): where the value
// came from - the step that last wrote it, that instruction's inputs and
// their origins, as a tree (engine/query/origin.h), symbolized from the
// program's ELF where it is known (--program, or the program the trace
// names).
#include <iostream>

#include "engine/query/origin.h"
#include "engine/query/origin_render.h"
#include "engine/query/query_text.h"
#include "tools/ttd/commands.h"
#include "tools/ttd/trace_options.h"
#include "tools/ttd/usage_error.h"

namespace ttd::cli {

namespace {

struct OriginOptions {
  TraceOptions trace;
  std::string at, reg, mem;
  uint32_t depth = query::kDefaultOriginDepth, breadth = query::kDefaultOriginBreadth, nodes = query::kDefaultOriginNodes;
  bool json = false;
};

int run_origin(const OriginOptions& o) {
  if (o.reg.empty() == o.mem.empty()) return usage_error("origin", "give exactly one of --reg NAME or --mem ADDR:LEN");
  auto at = query::parse_number(o.at, "--at");
  if (!at) return usage_error("origin", at.error().to_string());
  auto t = open_trace_or_report(o.trace);
  if (!t) return 1;
  auto loc = query::parse_origin_location(*t, o.reg, o.mem);
  if (!loc) return usage_error("origin", "--" + loc.error().to_string());
  query::OriginQuery q;
  q.loc = *loc;
  q.at = *at;
  q.depth = o.depth;
  q.breadth = o.breadth;
  q.max_nodes = o.nodes;
  if (auto s = query::check_origin_query(*t, q); !s) return usage_error("origin", "--" + s.error().to_string());
  auto sym = query::program_symbolizer(*t, o.trace.program);
  if (!sym) {
    std::cerr << "ttd origin: " << sym.error().to_string() << "\n";
    return 1;
  }
  auto g = query::trace_origin(*t, q);
  if (!g) {
    std::cerr << "ttd origin: " << g.error().to_string() << "\n";
    return 1;
  }
  if (o.json)
    std::cout << query::origin_to_json(*t, *g, *sym) << "\n";
  else
    std::cout << query::origin_to_text(*t, *g, *sym);
  return 0;
}

}  // namespace

void add_origin_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<OriginOptions>();
  auto* sub = app.add_subcommand("origin", "where a register's or memory range's value came from (backward dataflow)");
  add_trace_options(*sub, o->trace);
  sub->add_option("--at", o->at, "the position (EID) whose value to explain")->required();
  sub->add_option("--reg", o->reg, "register name (gdb's names)");
  sub->add_option("--mem", o->mem, "memory range ADDR:LEN (decimal or 0x-hex)");
  sub->add_option("--depth", o->depth,
                  "write steps to follow along any path, 1.." + std::to_string(query::kMaxOriginDepth) + " (default " +
                      std::to_string(query::kDefaultOriginDepth) + ")");
  sub->add_option("--breadth", o->breadth,
                  "inputs followed per step, 1.." + std::to_string(query::kMaxOriginBreadth) + " (default " +
                      std::to_string(query::kDefaultOriginBreadth) + ")");
  sub->add_option("--nodes", o->nodes,
                  "nodes in the answer at most, 1.." + std::to_string(query::kMaxOriginNodes) + " (default " +
                      std::to_string(query::kDefaultOriginNodes) + ")");
  sub->add_flag("--json", o->json, "one JSON document (schema: docs/queries.md, origin)");
  sub->callback([o, &run] { run = [o] { return run_origin(*o); }; });
}

}  // namespace ttd::cli
