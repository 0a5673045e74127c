// gotoTargets, goto: jump to where a source line ran next (or last) —
// the trace's equivalent of "set next statement".
#include "dap/handlers/handler_args.h"
#include "dap/stop_report.h"

namespace ttd::dap {

namespace {

Result<json> goto_targets(RequestContext& c) {
  auto src = opt_object(c.args, "source");
  if (!src) return src.error();
  if (!*src) return make_error("arguments.source", "is required");
  auto path = opt_string(**src, "path");
  if (!path) return path.error();
  if (!*path) return make_error("arguments.source.path", "is required");
  auto line = req_int(c.args, "line");
  if (!line) return line.error();
  auto targets = c.state.debuggee->goto_targets(**path, from_client_line(c.state, *line));
  if (!targets) return failed(targets.error().message);
  auto& table = c.state.goto_targets;
  table = *targets;
  json out = json::array();
  for (size_t i = 0; i < table.size(); ++i)
    out.push_back({{"id", i + 1}, {"label", table[i].label}, {"line", client_line(c.state, table[i].source.line)}});
  return json{{"targets", out}};
}

Result<json> go_to(RequestContext& c) {
  auto id = req_int(c.args, "targetId");
  if (!id) return id.error();
  auto& table = c.state.goto_targets;
  if (*id < 1 || *id > int64_t(table.size())) return not_found("targetId " + std::to_string(*id) + " is not a current goto target");
  uint64_t eid = table[size_t(*id - 1)].eid;
  if (auto s = c.state.debuggee->seek(eid); !s) return failed(s.error().message);
  c.after_response = [&c, eid] { report_position(c.state, c.out, "goto", "Jumped to EID " + std::to_string(eid)); };
  return json(nullptr);
}

}  // namespace

void register_goto_handlers(Dispatcher& d) {
  d.add("gotoTargets", Needs::Launched, goto_targets);
  d.add("goto", Needs::Launched, go_to);
}

}  // namespace ttd::dap
