// EngineDebuggee::origin: backward dataflow (engine/query/origin.h) at the
// current position, for the ttdOrigin request and `evaluate` in the
// "origin" context. Pcs are symbolized from the debuggee's own DWARF, with
// source paths as the client names them, so an IDE can jump to each step.
#include "dap/model/engine_debuggee.h"
#include "engine/query/origin.h"
#include "engine/query/origin_render.h"

namespace ttd::dap {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

Result<OriginAnswer> EngineDebuggee::origin(const OriginRequest& r) {
  const std::string e = trim(r.expression);
  if (e.empty()) return make_error("expression", "give a register, ADDR:LEN or a variable");
  const uint64_t tid = thread_or_current(r.tid);
  query::OriginQuery q;
  q.at = position();
  // A register ($rax or rax), then ADDR:LEN, then an lvalue of the frame.
  const std::string reg = e[0] == '$' ? e.substr(1) : e;
  if (auto l = query::parse_origin_location(*trace_, reg, ""); l) {
    q.loc = *l;
  } else if (auto m = query::parse_origin_location(*trace_, "", e); m && e.find(':') != std::string::npos) {
    q.loc = *m;
  } else {
    auto target = data_target(e, tid, r.frame);
    if (!target) return make_error("expression", "'" + e + "' is neither a register, ADDR:LEN nor an lvalue: " + target.error().message);
    q.loc.kind = query::OriginLocation::Kind::Memory;
    q.loc.range = {target->addr, target->len};
  }
  if (r.depth) q.depth = r.depth;
  if (r.breadth) q.breadth = r.breadth;
  if (r.nodes) q.max_nodes = r.nodes;
  if (auto s = query::check_origin_query(*trace_, q); !s) return s.error();
  auto g = query::trace_origin(*trace_, q);
  if (!g) return g.error();
  query::PcSymbolizer sym;
  if (debug_) {
    sym = [this](uint64_t pc) -> std::optional<query::PcPlace> {
      auto f = debug_->function_at(pc);
      auto l = debug_->line_at(pc);
      if (!f && !l) return std::nullopt;
      query::PcPlace p;
      if (f) {
        p.function = f->name;
        p.offset = pc - f->addr;
      }
      if (l) {
        p.file = to_client_path(l->file);
        p.line = l->line;
      }
      return p;
    };
  }
  return OriginAnswer{query::origin_to_json(*trace_, *g, sym), query::origin_to_text(*trace_, *g, sym)};
}

}  // namespace ttd::dap
