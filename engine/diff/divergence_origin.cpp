#include "engine/diff/divergence_origin.h"

namespace ttd::diff {

namespace {

void trace_one(const Trace& t, const query::OriginLocation& loc, uint64_t at, const OriginLimits& l,
               std::optional<query::OriginGraph>& out, std::string& err) {
  query::OriginQuery q;
  q.loc = loc;
  q.at = at;
  q.depth = l.depth, q.breadth = l.breadth, q.max_nodes = l.nodes;
  q.cancel = l.cancel;
  auto g = query::trace_origin(t, q);
  if (g)
    out = std::move(*g);
  else
    err = g.error().to_string();
}

}  // namespace

std::vector<InputOrigin> trace_input_origins(const Trace& a, const Trace& b, const BranchExplanation& why,
                                             const OriginLimits& limits) {
  const InstructionDelta& d = why.flags_set_by ? *why.flags_set_by : why.branch;
  std::vector<InputOrigin> out;
  for (const ValueDelta& v : d.inputs) {
    if (out.size() >= kDiffOriginInputs) break;
    query::OriginLocation loc;
    if (v.reg) {
      loc.kind = query::OriginLocation::Kind::Register;
      loc.reg = *v.reg;
    } else if (v.mem_addr) {
      loc.kind = query::OriginLocation::Kind::Memory;
      loc.range = {*v.mem_addr, v.mem_len};
    } else {
      continue;
    }
    InputOrigin o;
    o.what = v.what;
    o.eid_a = d.eid_a, o.eid_b = d.eid_b;
    trace_one(a, loc, d.eid_a, limits, o.a, o.error_a);
    trace_one(b, loc, d.eid_b, limits, o.b, o.error_b);
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace ttd::diff
