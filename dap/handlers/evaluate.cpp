// evaluate: expressions go to the debuggee; a few time-travel commands
// (eid, seek N, reverse-finish, help) are the adapter's own.
#include <cctype>

#include "dap/handlers/handler_args.h"
#include "dap/handlers/origin.h"
#include "dap/stop_report.h"

namespace ttd::dap {

namespace {

const char* kHelp =
    "ttd commands (type them in the debug console):\n"
    "  eid                  the current position (EID) and the trace's length\n"
    "  seek N               go to EID N (also: seek begin, seek end)\n"
    "  reverse-finish       run backwards to the call of the current function\n"
    "  origin EXPR          where the value of a variable, register or ADDR:LEN came from\n"
    "Anything else is evaluated as a C expression: registers ($rax or rax),\n"
    "variables, *p, p->field, a[i], &x, casts such as *(long *)0x4c72f0,\n"
    "+ - * / % << >> & | ^, comparisons (== != < <= > >=), && || !.\n";

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

json text_result(const std::string& text) { return {{"result", text}, {"variablesReference", 0}}; }

Result<json> seek_command(RequestContext& c, const std::string& arg) {
  Debuggee& d = *c.state.debuggee;
  uint64_t target = 0;
  if (arg == "begin" || arg == "start") target = 0;
  else if (arg == "end") target = d.end_position();
  else if (auto n = parse_address(arg)) target = *n;
  else return bad_request("seek: expected an EID, 'begin' or 'end', got '" + arg + "'");
  if (auto s = d.seek(target); !s) return bad_request("seek: " + s.error().message);
  c.after_response = [&c, target] {
    report_position(c.state, c.out, "goto", "Jumped to EID " + std::to_string(target));
  };
  return text_result("EID " + std::to_string(target));
}

Result<json> evaluate(RequestContext& c) {
  auto expr = req_string(c.args, "expression");
  if (!expr) return expr.error();
  auto context = opt_string(c.args, "context");
  if (!context) return context.error();
  std::string e = trim(*expr);
  Debuggee& d = *c.state.debuggee;
  if (e == "eid" || e == "$eid")
    return text_result("EID " + std::to_string(d.position()) + " of " + std::to_string(d.end_position()) + " steps");
  if (e == "help" || e == "?") return text_result(kHelp);
  if (e.rfind("seek", 0) == 0 && (e.size() == 4 || std::isspace(static_cast<unsigned char>(e[4])))) return seek_command(c, trim(e.substr(4)));
  if (e == "reverse-finish" || e == "rfinish") {
    uint64_t tid = c.state.stopped_tid;
    c.after_response = [&c, tid] {
      resume_and_report(c.state, c.out, Motion::StepOut, Direction::Backward, Granularity::Line, tid);
    };
    return text_result("running backwards to the caller");
  }
  if (e.empty()) return bad_request("empty expression");
  if (is_origin_evaluate(e, context->value_or(""))) return origin_evaluate(c, e, context->value_or(""));
  auto f = frame_arg(c);
  if (!f) return f.error();
  auto r = d.evaluate(e, f->tid, f->index);
  if (!r) return bad_request(r.error().message);
  json body = {{"result", r->value}, {"variablesReference", c.state.variable_ref(r->children_key)}};
  if (!r->type.empty()) body["type"] = r->type;
  if (r->memory_reference) body["memoryReference"] = hex_address(*r->memory_reference);
  return body;
}

// setVariable / setExpression: a trace is a record of what happened; a
// changed value would make every later position disagree with it.
Result<json> refuse_change(RequestContext& c) {
  return failed("values cannot be changed: a trace records what the program did, and ttd replays it as recorded "
                "(setVariable and setExpression are not supported)");
}

}  // namespace

void register_evaluate_handlers(Dispatcher& d) {
  d.add("evaluate", Needs::Launched, evaluate);
  d.add("setVariable", Needs::Launched, refuse_change);
  d.add("setExpression", Needs::Launched, refuse_change);
}

}  // namespace ttd::dap
