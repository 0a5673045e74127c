// EngineDebuggee: source lines and function names to addresses, and the
// goto targets (where a line runs next / ran last).
#include <algorithm>

#include "dap/model/engine_debuggee.h"
#include "dap/protocol/json_args.h"

namespace ttd::dap {

Result<std::vector<BreakpointLocation>> EngineDebuggee::resolve_line(const std::string& path, int line) {
  if (!has_source_info()) return make_error("setBreakpoints", "no line information (no program with DWARF)");
  std::vector<BreakpointLocation> out;
  for (const auto& loc : debug_->resolve_line(to_recorded_path(path), line))
    out.push_back({loc.addr, SourceRef{to_client_path(loc.file), loc.line, 0}});
  if (out.empty()) return make_error("setBreakpoints", "no code at or after line " + std::to_string(line) + " of " + path);
  return out;
}

Result<std::vector<BreakpointLocation>> EngineDebuggee::resolve_function(const std::string& name) {
  std::vector<BreakpointLocation> out;
  // "*0x401000" or "0x401000": an address, as gdb's `break *ADDR`.
  std::string n = name.size() > 1 && name[0] == '*' ? name.substr(1) : name;
  if (n.rfind("0x", 0) == 0)
    if (auto a = parse_address(n)) {
      out.push_back({*a, source_at(*a).value_or(SourceRef{})});
      return out;
    }
  if (!debug_) return make_error("setFunctionBreakpoints", "no program given: function names are unknown (use an address like *0x401000)");
  for (const auto& fn : debug_->functions_named(name)) {
    uint64_t a = debug_->breakpoint_address(fn).value_or(fn.addr);
    out.push_back({a, source_at(a).value_or(SourceRef{})});
  }
  if (out.empty()) return make_error("setFunctionBreakpoints", "no function named '" + name + "' in " + debug_->path());
  return out;
}

Result<std::vector<GotoTarget>> EngineDebuggee::goto_targets(const std::string& path, int line) {
  auto locs = resolve_line(path, line);
  if (!locs) return locs.error();
  std::vector<uint64_t> pcs;
  for (const auto& l : *locs) pcs.push_back(l.addr);
  std::sort(pcs.begin(), pcs.end());
  std::optional<uint64_t> next = timeline_.next_execution(Direction::Forward, pcs);
  std::optional<uint64_t> prev = timeline_.next_execution(Direction::Backward, pcs);
  std::vector<GotoTarget> out;
  SourceRef src = (*locs)[0].source;
  if (next) out.push_back({"Next time line " + std::to_string(src.line) + " runs (EID " + std::to_string(*next) + ")", *next, src});
  if (prev) out.push_back({"Last time line " + std::to_string(src.line) + " ran (EID " + std::to_string(*prev) + ")", *prev, src});
  return out;
}

}  // namespace ttd::dap
