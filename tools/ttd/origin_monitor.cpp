#include "tools/ttd/origin_monitor.h"

#include "engine/query/origin.h"
#include "engine/query/origin_render.h"
#include "engine/query/query_text.h"
#include "tools/ttd/monitor_args.h"

namespace ttd::cli {

namespace {

gdb::MonitorReply failure(const Error& e) {
  std::string text = e.to_string();
  if (!text.starts_with("origin:")) text = "origin: " + text;
  return {"error: " + text + "\n", false};
}

Result<uint32_t> limit_arg(const MonitorArgs& a, const std::string& name, const std::string& positional, uint32_t fallback) {
  std::string text = a.has(name) ? a.option(name) : positional;
  if (text.empty()) return fallback;
  auto v = query::parse_number(text, name);
  if (!v) return v.error();
  if (*v > UINT32_MAX) return make_error(name, "too large: " + text);
  return uint32_t(*v);
}

}  // namespace

gdb::MonitorReply origin_monitor(const std::shared_ptr<const Trace>& t, uint64_t here, std::string_view args,
                                 const InterruptCheck& interrupted) {
  MonitorSyntax syntax{{"--depth", "--breadth", "--nodes", "--at"}, {"--json"}, 2};
  auto a = parse_monitor_args(args, syntax, "origin");
  if (!a) return failure(a.error());
  if (a->positional.empty()) return failure(make_error("origin", "give a register name or ADDR:LEN (and a depth)"));
  const std::string& what = a->positional[0];
  // ADDR:LEN is memory; anything else names a register.
  const bool mem = what.find(':') != std::string::npos;
  auto loc = query::parse_origin_location(*t, mem ? "" : what, mem ? what : "");
  if (!loc) return failure(loc.error());
  query::OriginQuery q;
  q.loc = *loc;
  q.at = here;
  if (a->has("--at")) {
    auto v = query::parse_number(a->option("--at"), "--at");
    if (!v) return failure(v.error());
    q.at = *v;
  }
  auto depth = limit_arg(*a, "--depth", a->positional.size() > 1 ? a->positional[1] : "", query::kDefaultOriginDepth);
  auto breadth = limit_arg(*a, "--breadth", "", query::kDefaultOriginBreadth);
  auto nodes = limit_arg(*a, "--nodes", "", query::kDefaultOriginNodes);
  for (auto* r : {&depth, &breadth, &nodes})
    if (!*r) return failure(r->error());
  q.depth = *depth;
  q.breadth = *breadth;
  q.max_nodes = *nodes;
  q.cancel = interrupted;
  if (auto s = query::check_origin_query(*t, q); !s) return failure(s.error());
  auto sym = query::program_symbolizer(*t);
  auto g = query::trace_origin(*t, q);
  if (!g) return failure(g.error());
  const query::PcSymbolizer none;
  const query::PcSymbolizer& s = sym ? *sym : none;
  if (a->flag("--json")) return {query::origin_to_json(*t, *g, s) + "\n"};
  return {query::origin_to_text(*t, *g, s)};
}

}  // namespace ttd::cli
