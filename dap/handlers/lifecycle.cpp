// initialize, launch, attach, configurationDone, disconnect, terminate.
#include "dap/dispatcher.h"
#include "dap/protocol/json_args.h"
#include "dap/stop_report.h"

namespace ttd::dap {

namespace {

// Every "supports...": true here has a handler; test_dap_conditions.py checks
// each against a live session.
json capabilities() {
  return {
      {"supportsConfigurationDoneRequest", true},
      {"supportsStepBack", true},
      {"supportsDataBreakpoints", true},
      {"supportsDataBreakpointBytes", true},
      {"supportsDisassembleRequest", true},
      {"supportsReadMemoryRequest", true},
      {"supportsSteppingGranularity", true},
      {"supportsInstructionBreakpoints", true},
      {"supportsGotoTargetsRequest", true},
      {"supportsEvaluateForHovers", true},
      {"supportsFunctionBreakpoints", true},
      {"supportsTerminateRequest", true},
      {"supportsCancelRequest", true},
      {"supportsSetVariable", false},
      {"supportsSetExpression", false},
      {"supportsRestartRequest", false},
      // Conditions, hit counts and logpoints on source, function and
      // instruction breakpoints (not data breakpoints: those refuse them).
      {"supportsConditionalBreakpoints", true},
      {"supportsHitConditionalBreakpoints", true},
      {"supportsLogPoints", true},
      {"exceptionBreakpointFilters", json::array()},
  };
}

Result<json> initialize(RequestContext& c) {
  if (c.state.phase != Phase::New) return wrong_state("'initialize' was already sent");
  auto id = opt_string(c.args, "clientID");
  auto lines = opt_bool(c.args, "linesStartAt1", true);
  auto cols = opt_bool(c.args, "columnsStartAt1", true);
  auto memrefs = opt_bool(c.args, "supportsMemoryReferences", false);
  auto inval = opt_bool(c.args, "supportsInvalidatedEvent", false);
  if (!id) return id.error();
  if (!lines) return lines.error();
  if (!cols) return cols.error();
  if (!memrefs) return memrefs.error();
  if (!inval) return inval.error();
  c.state.client.id = id->value_or("");
  c.state.client.lines_start_at1 = *lines;
  c.state.client.columns_start_at1 = *cols;
  c.state.client.supports_memory_references = *memrefs;
  c.state.client.supports_invalidated_event = *inval;
  c.state.phase = Phase::Initialized;
  return capabilities();
}

Result<LaunchConfig> parse_launch(const json& a, bool& stop_on_entry) {
  LaunchConfig cfg;
  auto trace = req_string(a, "trace");
  if (!trace) return make_error("arguments.trace", "is required: the path of the trace to debug");
  cfg.trace = *trace;
  auto program = opt_string(a, "program");
  if (!program) return program.error();
  cfg.program = program->value_or("");
  auto entry = opt_bool(a, "stopOnEntry", true);
  if (!entry) return entry.error();
  stop_on_entry = *entry;
  if (auto it = a.find("start"); it != a.end() && !it->is_null()) {
    if (it->is_number_unsigned()) cfg.start = std::to_string(it->get<uint64_t>());
    else if (it->is_string()) cfg.start = it->get<std::string>();
    else return make_error("arguments.start", "must be \"begin\", \"end\" or an EID");
  }
  auto map = opt_object(a, "sourceMap");
  if (!map) return map.error();
  if (*map)
    for (auto& [from, to] : (*map)->items()) {
      if (!to.is_string()) return make_error("arguments.sourceMap", "values must be strings (local paths)");
      cfg.source_map.emplace_back(from, to.get<std::string>());
    }
  return cfg;
}

Result<json> launch(RequestContext& c) {
  if (c.state.phase == Phase::Launched) return wrong_state("a trace is already open in this session");
  if (!c.state.factory) return failed("this adapter cannot open traces");
  bool stop_on_entry = true;
  auto cfg = parse_launch(c.args, stop_on_entry);
  if (!cfg) return cfg.error();
  Outbox& out = c.out;
  auto d = c.state.factory(*cfg, [&out](const std::string& line) { out.output(line + "\n"); });
  if (!d) return make_error("launch", "cannot debug " + cfg->trace + ": " + d.error().to_string());
  c.state.debuggee = std::move(*d);
  c.state.config = std::move(*cfg);
  c.state.stop_on_entry = stop_on_entry;
  c.state.phase = Phase::Launched;
  c.state.stopped_tid = c.state.debuggee->current_thread();
  c.after_response = [&c] {
    c.out.output("ttd: " + c.state.debuggee->description() + "\n");
    // Now the client may send its breakpoints.
    c.out.event("initialized");
  };
  return json(nullptr);
}

Result<json> configuration_done(RequestContext& c) {
  if (c.state.phase != Phase::Launched) return wrong_state("'configurationDone' before 'launch' or 'attach'");
  if (c.state.configured) return json(nullptr);  // repeated: nothing more to do
  c.state.configured = true;
  c.after_response = [&c] {
    SessionState& s = c.state;
    Debuggee& d = *s.debuggee;
    if (s.stop_on_entry) {
      std::string where = d.position() == d.end_position() ? "the end of the trace" : "EID " + std::to_string(d.position());
      report_position(s, c.out, "entry", "Trace opened at " + where + " (" + std::to_string(d.end_position()) + " steps)");
    } else {
      resume_and_report(s, c.out, Motion::Continue, Direction::Forward, Granularity::Instruction, d.current_thread());
    }
  };
  return json(nullptr);
}

Result<json> disconnect(RequestContext& c) {
  c.state.phase = Phase::Ended;
  c.state.interrupt = false;
  return json(nullptr);
}

Result<json> terminate(RequestContext& c) {
  c.state.interrupt = false;
  c.after_response = [&c] { c.out.event("terminated"); };
  return json(nullptr);
}

}  // namespace

void register_lifecycle_handlers(Dispatcher& d) {
  d.add("initialize", Needs::Nothing, initialize);
  d.add("launch", Needs::Initialized, launch);
  d.add("attach", Needs::Initialized, launch);  // a trace is attached to exactly like it is launched
  d.add("configurationDone", Needs::Initialized, configuration_done);
  d.add("disconnect", Needs::Nothing, disconnect);
  d.add("terminate", Needs::Initialized, terminate);
}

}  // namespace ttd::dap
