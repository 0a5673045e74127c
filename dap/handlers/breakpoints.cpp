// setBreakpoints, setFunctionBreakpoints, setInstructionBreakpoints,
// dataBreakpointInfo, setDataBreakpoints, setExceptionBreakpoints.
#include <cinttypes>
#include <cstdio>

#include "dap/handlers/breakpoint_conditions.h"
#include "dap/handlers/handler_args.h"
#include "dap/stop_report.h"

namespace ttd::dap {

namespace {

json breakpoint_json(const SessionState& s, const BreakpointRecord& b) {
  json j = {{"id", b.id}, {"verified", !b.addrs.empty()}};
  if (!b.message.empty()) j["message"] = b.message;
  if (b.source) {
    j["source"] = source_json(b.source->path);
    j["line"] = client_line(s, b.source->line);
  }
  if (!b.addrs.empty()) j["instructionReference"] = hex_address(b.addrs.front());
  return j;
}

BreakpointRecord from_locations(SessionState& s, Result<std::vector<BreakpointLocation>> locs, const std::string& what) {
  BreakpointRecord b;
  b.id = s.next_breakpoint_id++;
  if (!locs) {
    b.message = locs.error().message;
    return b;
  }
  if (locs->empty()) {
    b.message = "no code for " + what;
    return b;
  }
  for (const auto& l : *locs) b.addrs.push_back(l.addr);
  if (!(*locs)[0].source.path.empty()) b.source = (*locs)[0].source;
  return b;
}

Result<json> set_breakpoints(RequestContext& c) {
  auto src = opt_object(c.args, "source");
  if (!src) return src.error();
  if (!*src) return make_error("arguments.source", "is required");
  auto path = opt_string(**src, "path");
  if (!path) return path.error();
  if (!*path) return make_error("arguments.source.path", "is required (sources without a path are not supported)");
  auto list = opt_array(c.args, "breakpoints");
  if (!list) return list.error();
  std::vector<int64_t> lines;
  std::vector<const json*> options;  // each line's client object (none for the legacy "lines")
  for (const auto& b : *list) {
    auto line = req_int(b, "line");
    if (!line) return make_error("arguments.breakpoints", "every breakpoint needs an integer \"line\"");
    lines.push_back(*line);
    options.push_back(&b);
  }
  if (list->empty()) {  // the deprecated "lines" form
    auto legacy = opt_array(c.args, "lines");
    if (!legacy) return legacy.error();
    for (const auto& l : *legacy) {
      if (!l.is_number_integer()) return make_error("arguments.lines", "must hold integers");
      lines.push_back(l.get<int64_t>());
    }
  }
  auto& records = c.state.source_breakpoints[**path];
  records.clear();
  for (size_t i = 0; i < lines.size(); ++i) {
    int64_t line = lines[i];
    int l = from_client_line(c.state, line);
    if (!c.state.debuggee->has_source_info()) {
      BreakpointRecord b;
      b.id = c.state.next_breakpoint_id++;
      b.message = "no line information: give \"program\" (the traced ELF with DWARF) in the launch configuration";
      records.push_back(b);
      continue;
    }
    records.push_back(from_locations(c.state, c.state.debuggee->resolve_line(**path, l), **path + ":" + std::to_string(l)));
    if (!records.back().source) records.back().source = SourceRef{**path, l, 0};
    if (i < options.size())
      if (auto s = read_breakpoint_options(*options[i], *c.state.debuggee, records.back()); !s) return s.error();
  }
  json out = json::array();
  for (const auto& b : records) out.push_back(breakpoint_json(c.state, b));
  if (records.empty()) c.state.source_breakpoints.erase(**path);
  return json{{"breakpoints", out}};
}

Result<json> set_function_breakpoints(RequestContext& c) {
  auto list = opt_array(c.args, "breakpoints");
  if (!list) return list.error();
  std::vector<std::string> names;
  for (const auto& b : *list) {
    auto name = req_string(b, "name");
    if (!name) return make_error("arguments.breakpoints", "every function breakpoint needs a \"name\"");
    names.push_back(*name);
  }
  std::vector<BreakpointRecord> records;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    records.push_back(from_locations(c.state, c.state.debuggee->resolve_function(n), "function '" + n + "'"));
    if (auto s = read_breakpoint_options((*list)[i], *c.state.debuggee, records.back()); !s) return s.error();
  }
  c.state.function_breakpoints = std::move(records);
  json out = json::array();
  for (const auto& b : c.state.function_breakpoints) out.push_back(breakpoint_json(c.state, b));
  return json{{"breakpoints", out}};
}

Result<json> set_instruction_breakpoints(RequestContext& c) {
  auto list = opt_array(c.args, "breakpoints");
  if (!list) return list.error();
  std::vector<BreakpointRecord> records;
  for (const auto& b : *list) {
    auto ref = req_string(b, "instructionReference");
    if (!ref) return make_error("arguments.breakpoints", "every instruction breakpoint needs an \"instructionReference\"");
    auto off = opt_int(b, "offset");
    if (!off) return off.error();
    BreakpointRecord r;
    r.id = c.state.next_breakpoint_id++;
    auto addr = parse_address(*ref);
    if (!addr) r.message = "'" + *ref + "' is not an address";
    else r.addrs.push_back(*addr + uint64_t(off->value_or(0)));
    if (auto s = read_breakpoint_options(b, *c.state.debuggee, r); !s) return s.error();
    records.push_back(std::move(r));
  }
  c.state.instruction_breakpoints = std::move(records);
  json out = json::array();
  for (const auto& r : c.state.instruction_breakpoints) out.push_back(breakpoint_json(c.state, r));
  return json{{"breakpoints", out}};
}

std::string data_id(uint64_t addr, uint64_t len) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64 "/%" PRIu64, addr, len);
  return buf;
}

bool parse_data_id(const std::string& id, uint64_t& addr, uint64_t& len) {
  size_t slash = id.find('/');
  if (slash == std::string::npos) return false;
  auto a = parse_address(id.substr(0, slash));
  auto l = parse_address(id.substr(slash + 1));
  if (!a || !l || *l == 0 || *l > (1u << 20)) return false;
  addr = *a;
  len = *l;
  return true;
}

Result<json> data_breakpoint_info(RequestContext& c) {
  auto name = req_string(c.args, "name");
  if (!name) return name.error();
  auto ref = opt_int(c.args, "variablesReference");
  auto bytes = opt_int(c.args, "bytes");
  auto as_address = opt_bool(c.args, "asAddress", false);
  if (!ref) return ref.error();
  if (!bytes) return bytes.error();
  if (!as_address) return as_address.error();
  Result<DataTarget> t = DataTarget{};
  if (*as_address) {
    auto addr = parse_address(*name);
    if (!addr) return bad_request("'" + *name + "' is not an address");
    uint64_t len = uint64_t(bytes->value_or(1));
    t = DataTarget{*addr, len, std::to_string(len) + " bytes at " + hex_address(*addr)};
  } else if (*ref && **ref > 0) {
    const std::string* key = c.state.variables.find(**ref);
    if (!key) return not_found("variablesReference " + std::to_string(**ref) + " is not valid");
    t = c.state.debuggee->data_target_in(*key, *name);
  } else {
    auto f = frame_arg(c);
    if (!f) return f.error();
    t = c.state.debuggee->data_target(*name, f->tid, f->index);
  }
  if (!t) return json{{"dataId", nullptr}, {"description", t.error().message}};
  if (bytes->has_value() && **bytes > 0) t->len = uint64_t(**bytes);
  c.state.data_descriptions[data_id(t->addr, t->len)] = t->description;
  return json{{"dataId", data_id(t->addr, t->len)},
              {"description", t->description},
              {"accessTypes", {"write", "read", "readWrite"}},
              {"canPersist", false}};
}

Result<json> set_data_breakpoints(RequestContext& c) {
  auto list = opt_array(c.args, "breakpoints");
  if (!list) return list.error();
  std::vector<DataBreakpointRecord> records;
  json out = json::array();
  for (const auto& b : *list) {
    auto id = req_string(b, "dataId");
    if (!id) return make_error("arguments.breakpoints", "every data breakpoint needs a \"dataId\"");
    auto access = opt_string(b, "accessType");
    if (!access) return access.error();
    DataBreakpointRecord r;
    r.id = c.state.next_breakpoint_id++;
    r.data_id = *id;
    std::string a = access->value_or("write");
    r.range.kind = a == "read" ? WatchKind::Read : a == "readWrite" ? WatchKind::Access : WatchKind::Write;
    if (a != "read" && a != "write" && a != "readWrite")
      return make_error("arguments.breakpoints.accessType", "must be \"read\", \"write\" or \"readWrite\"");
    bool ok = parse_data_id(*id, r.range.addr, r.range.len);
    // A watch stops where the access happened, not where code is: there is
    // no loop over conditions for it (yet), so it is refused, not ignored.
    bool conditional = false;
    for (const char* k : {"condition", "hitCondition"})
      if (auto it = b.find(k); it != b.end() && it->is_string() && !it->get<std::string>().empty()) conditional = true;
    auto known = c.state.data_descriptions.find(*id);
    r.description = known != c.state.data_descriptions.end() ? known->second
                    : ok ? std::to_string(r.range.len) + " bytes at " + hex_address(r.range.addr) : "";
    json j = {{"id", r.id}, {"verified", ok && !conditional}};
    if (!ok) j["message"] = "'" + *id + "' is not a data id from dataBreakpointInfo";
    else if (conditional) j["message"] = "conditions and hit counts on data breakpoints are not supported";
    out.push_back(j);
    if (ok && !conditional) records.push_back(std::move(r));
  }
  c.state.data_breakpoints = std::move(records);
  return json{{"breakpoints", out}};
}

Result<json> set_exception_breakpoints(RequestContext&) { return json{{"breakpoints", json::array()}}; }

}  // namespace

void register_breakpoint_handlers(Dispatcher& d) {
  d.add("setBreakpoints", Needs::Launched, set_breakpoints);
  d.add("setFunctionBreakpoints", Needs::Launched, set_function_breakpoints);
  d.add("setInstructionBreakpoints", Needs::Launched, set_instruction_breakpoints);
  d.add("dataBreakpointInfo", Needs::Launched, data_breakpoint_info);
  d.add("setDataBreakpoints", Needs::Launched, set_data_breakpoints);
  d.add("setExceptionBreakpoints", Needs::Launched, set_exception_breakpoints);
}

}  // namespace ttd::dap
