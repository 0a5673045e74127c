// ttdOrigin (a custom request) and `evaluate` in the "origin" context (or
// the debug-console command `origin EXPR`): where the value of a register,
// a memory range or a variable came from, as a tree whose nodes carry the
// EIDs (and source lines) of the steps that wrote each value, so an IDE
// can offer "jump to the step that wrote this". The answer is the JSON
// document of `ttd origin --json` (docs/queries.md) under body.origin.
//
// ttdOrigin arguments: expression (a register such as "rax" or "$rax",
// "ADDR:LEN", or an lvalue such as "pears->quantity"), frameId, depth,
// breadth, nodes (all optional but expression).
#include "dap/handlers/origin.h"

#include "dap/handlers/handler_args.h"

namespace ttd::dap {

namespace {

Result<uint32_t> limit_arg(const json& args, const char* name) {
  auto v = opt_int(args, name);
  if (!v) return v.error();
  if (!*v) return 0u;
  if (**v < 1 || **v > 1000000) return bad_request(std::string("arguments.") + name + " must be a positive number");
  return uint32_t(**v);
}

Result<OriginRequest> origin_request(RequestContext& c, const std::string& expression) {
  OriginRequest r;
  r.expression = expression;
  auto f = frame_arg(c);
  if (!f) return f.error();
  r.tid = f->tid;
  r.frame = f->index;
  for (auto [name, field] : {std::pair{"depth", &r.depth}, {"breadth", &r.breadth}, {"nodes", &r.nodes}}) {
    auto v = limit_arg(c.args, name);
    if (!v) return v.error();
    *field = *v;
  }
  return r;
}

Result<json> ttd_origin(RequestContext& c) {
  auto expr = req_string(c.args, "expression");
  if (!expr) return expr.error();
  auto r = origin_request(c, *expr);
  if (!r) return r.error();
  auto a = c.state.debuggee->origin(*r);
  if (!a) return failed(a.error().to_string());
  return json{{"origin", json::parse(a->json)}, {"text", a->text}};
}

}  // namespace

bool is_origin_evaluate(const std::string& expression, const std::string& context) {
  return context == "origin" || expression.rfind("origin ", 0) == 0;
}

Result<json> origin_evaluate(RequestContext& c, const std::string& expression, const std::string& context) {
  std::string e = context == "origin" ? expression : expression.substr(7);
  auto r = origin_request(c, e);
  if (!r) return r.error();
  auto a = c.state.debuggee->origin(*r);
  if (!a) return bad_request(a.error().to_string());
  return json{{"result", a->text}, {"variablesReference", 0}};
}

void register_origin_handlers(Dispatcher& d) { d.add("ttdOrigin", Needs::Launched, ttd_origin); }

}  // namespace ttd::dap
