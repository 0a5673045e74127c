// Trace.origin(at=, reg= | mem=(addr, len), depth=, breadth=, nodes=,
// program=): where a value came from (engine/query/origin.h), as the
// nested dicts of the JSON document `ttd origin --json` prints (schema in
// docs/queries.md), so scripts and the CLI read the same answer.
#include <pybind11/stl.h>

#include "engine/query/origin.h"
#include "engine/query/origin_render.h"
#include "engine/query/query_text.h"
#include "py_support.h"

namespace ttd::py {

void bind_origin(TraceClass& trace) {
  trace.def(
      "origin",
      [](std::shared_ptr<Trace> t, uint64_t at, const std::optional<std::string>& reg,
         const std::optional<std::pair<uint64_t, uint64_t>>& mem, uint32_t depth, uint32_t breadth, uint32_t nodes,
         const std::string& program) {
        if (reg.has_value() == mem.has_value()) raise(make_error("origin", "give exactly one of reg= and mem=(addr, len)"));
        query::OriginQuery q;
        if (reg) {
          q.loc = unwrap(query::parse_origin_location(*t, *reg, ""));
        } else {
          q.loc.kind = query::OriginLocation::Kind::Memory;
          q.loc.range = unwrap(query::make_range(mem->first, mem->second, "mem"));
        }
        q.at = at;
        q.depth = depth;
        q.breadth = breadth;
        q.max_nodes = nodes;
        q.cancel = python_cancel();
        if (auto s = query::check_origin_query(*t, q); !s) raise(s.error());
        auto sym = unwrap(query::program_symbolizer(*t, program));
        auto json = [&] {
          pyb::gil_scoped_release nogil;
          auto g = query::trace_origin(*t, q);
          return g ? Result<std::string>(query::origin_to_json(*t, *g, sym)) : Result<std::string>(g.error());
        }();
        std::string text = unwrap(std::move(json));
        return pyb::module_::import("json").attr("loads")(text);
      },
      pyb::kw_only(), pyb::arg("at"), pyb::arg("reg") = pyb::none(), pyb::arg("mem") = pyb::none(),
      pyb::arg("depth") = query::kDefaultOriginDepth, pyb::arg("breadth") = query::kDefaultOriginBreadth,
      pyb::arg("nodes") = query::kDefaultOriginNodes, pyb::arg("program") = "",
      "Where the value of a register or memory range (addr, len) at EID `at` came from: a dict with the "
      "tree under 'root' (each node: location, value, origin, step, inputs; see docs/queries.md).");
}

}  // namespace ttd::py
