// threads, stackTrace, scopes.
#include "dap/handlers/handler_args.h"
#include "dap/stop_report.h"

namespace ttd::dap {

namespace {

Result<json> threads(RequestContext& c) {
  json list = json::array();
  for (const auto& t : c.state.debuggee->threads()) list.push_back({{"id", t.id}, {"name", t.name}});
  return json{{"threads", list}};
}

Result<json> stack_trace(RequestContext& c) {
  auto tid = thread_arg(c, true);
  if (!tid) return tid.error();
  auto start = opt_int(c.args, "startFrame");
  auto levels = opt_int(c.args, "levels");
  if (!start) return start.error();
  if (!levels) return levels.error();
  int64_t first = start->value_or(0);
  int64_t count = levels->value_or(0);
  if (first < 0 || count < 0) return bad_request("startFrame and levels must not be negative");
  if (count == 0 || count > 1000) count = 1000;
  auto frames = c.state.debuggee->stack(*tid, size_t(first + count));
  if (!frames) return failed(frames.error().to_string());
  json out = json::array();
  for (size_t i = size_t(first); i < frames->size(); ++i) {
    const FrameEntry& f = (*frames)[i];
    int id = c.state.frames.add(FrameRef{*tid, i});
    json j = {{"id", id}, {"name", f.name}, {"instructionPointerReference", hex_address(f.pc)}};
    if (f.source) {
      j["source"] = source_json(f.source->path);
      j["line"] = client_line(c.state, f.source->line);
      j["column"] = client_column(c.state, f.source->column);
    } else {
      j["line"] = 0;
      j["column"] = 0;
      j["presentationHint"] = "subtle";
    }
    out.push_back(std::move(j));
  }
  return json{{"stackFrames", out}, {"totalFrames", frames->size()}};
}

Result<json> scopes(RequestContext& c) {
  auto id = req_int(c.args, "frameId");
  if (!id) return id.error();
  const FrameRef* f = c.state.frames.find(*id);
  if (!f) return not_found("frameId " + std::to_string(*id) + " is not valid (the position changed since the stack was read)");
  auto list = c.state.debuggee->scopes(f->tid, f->index);
  if (!list) return failed(list.error().to_string());
  json out = json::array();
  for (const auto& s : *list) {
    json j = {{"name", s.name}, {"variablesReference", c.state.variable_ref(s.key)}, {"expensive", s.expensive}};
    if (!s.hint.empty()) j["presentationHint"] = s.hint;
    out.push_back(std::move(j));
  }
  return json{{"scopes", out}};
}

}  // namespace

void register_thread_handlers(Dispatcher& d) {
  d.add("threads", Needs::Launched, threads);
  d.add("stackTrace", Needs::Launched, stack_trace);
  d.add("scopes", Needs::Launched, scopes);
}

}  // namespace ttd::dap
