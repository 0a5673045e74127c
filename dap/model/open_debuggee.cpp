// open_engine_debuggee: launch configuration -> an EngineDebuggee.
#include <unistd.h>

#include "dap/model/engine_debuggee.h"
#include "dap/protocol/json_args.h"
#include "engine/program_image.h"

namespace ttd::dap {

Result<std::unique_ptr<Debuggee>> open_engine_debuggee(const LaunchConfig& config,
                                                      const std::function<void(const std::string&)>& log) {
  if (config.trace.empty()) return make_error("trace", "no trace given");
  // The program serves the engine's code bytes too (where the trace has
  // none: call structure for stepOut on TT6 traces and the like).
  OpenOptions opts;
  opts.program = config.program;
  auto trace = Trace::open(config.trace, opts);
  if (!trace) return trace.error();
  std::shared_ptr<const Trace> t = *trace;
  if (t->step_count() == 0) return make_error(config.trace, "the trace has no steps");
  if (log && t->program()) log("ttd: code bytes from " + t->code_source());

  // The program: as configured, else the one the trace names (if present).
  std::string program = config.program;
  if (program.empty() && !t->info().exec_path.empty() && ::access(t->info().exec_path.c_str(), R_OK) == 0) {
    program = t->info().exec_path;
    if (log) log("ttd: using the program the trace names: " + program);
  }
  std::unique_ptr<dbg::DebugInfo> debug;
  if (!program.empty()) {
    auto d = dbg::DebugInfo::open(program);
    if (!d) {
      if (!config.program.empty()) return make_error("program", d.error().to_string());
      if (log) log("ttd: " + d.error().to_string() + "; debugging by instruction");
    } else if ((*d)->machine() != elf_machine_of(t->arch().id)) {
      if (log) log("ttd: " + program + " is not a " + t->arch().name + " program; ignoring it");
    } else {
      if (!(*d)->has_lines() && log) log("ttd: " + program + " has no DWARF line information (build it with -g); stepping by instruction");
      debug = std::move(*d);
    }
  }
  auto dbg = std::make_unique<EngineDebuggee>(t, std::move(debug), config);
  if (!config.start.empty() && config.start != "begin") {
    uint64_t at = 0;
    if (config.start == "end") at = t->step_count();
    else if (auto n = parse_address(config.start)) at = *n;
    else return make_error("start", "expected \"begin\", \"end\" or an EID, got '" + config.start + "'");
    if (auto s = dbg->seek(at); !s) return make_error("start", s.error().message);
  }
  return std::unique_ptr<Debuggee>(std::move(dbg));
}

}  // namespace ttd::dap
