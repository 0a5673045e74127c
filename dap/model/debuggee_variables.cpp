// EngineDebuggee: scopes, variables, evaluate, data breakpoint targets.
// Container keys: "L|tid|frame" locals, "G|tid|frame" globals,
// "R|tid|frame|group" registers, "E|tid|frame|expression" the children of
// an expression's value.
#include <cinttypes>
#include <cstdio>

#include "dap/model/engine_debuggee.h"
#include "dap/model/frame_scope.h"
#include "dap/model/value_view.h"

namespace ttd::dap {

namespace {

struct Key {
  char kind = 0;
  uint64_t tid = 0;
  size_t frame = 0;
  std::string payload;
};

std::string make_key(char kind, uint64_t tid, size_t frame, const std::string& payload = "") {
  return std::string(1, kind) + "|" + std::to_string(tid) + "|" + std::to_string(frame) + "|" + payload;
}

std::optional<Key> parse_key(const std::string& k) {
  size_t a = k.find('|');
  size_t b = a == std::string::npos ? a : k.find('|', a + 1);
  size_t c = b == std::string::npos ? b : k.find('|', b + 1);
  if (a != 1 || c == std::string::npos) return std::nullopt;
  Key key;
  key.kind = k[0];
  try {
    key.tid = std::stoull(k.substr(a + 1, b - a - 1));
    key.frame = std::stoull(k.substr(b + 1, c - b - 1));
  } catch (...) {
    return std::nullopt;
  }
  key.payload = k.substr(c + 1);
  return key;
}

std::string register_text(const std::vector<uint8_t>& bytes, bool known) {
  if (!known) return "<unknown>";
  std::string s = "0x";
  char h[4];
  for (size_t i = bytes.size(); i-- > 0;) {  // little-endian: most significant byte last
    std::snprintf(h, sizeof h, "%02x", bytes[i]);
    s += h;
  }
  return s;
}

std::string group_title(const std::string& g) {
  if (g == "general") return "Registers";
  std::string t = g;
  if (!t.empty()) t[0] = char(std::toupper(static_cast<unsigned char>(t[0])));
  return t + " registers";
}

VariableEntry problem_entry(const NamedValue& nv) {
  VariableEntry e;
  e.name = nv.name;
  e.value = nv.problem;
  e.type = nv.type_name;
  return e;
}

}  // namespace

Result<std::vector<ScopeEntry>> EngineDebuggee::scopes(uint64_t tid, size_t frame) {
  auto fs = frame_scope(tid, frame);
  if (!fs) return fs.error();
  std::vector<ScopeEntry> out;
  if (debug_) {
    out.push_back({"Locals", make_key('L', tid, frame), "locals", false});
    out.push_back({"Globals", make_key('G', tid, frame), "", false});
  }
  std::vector<std::string> groups;
  for (const auto& r : trace_->arch().regs)
    if (std::find(groups.begin(), groups.end(), r.group) == groups.end()) groups.push_back(r.group);
  std::stable_partition(groups.begin(), groups.end(), [](const std::string& g) { return g == "general"; });
  for (const auto& g : groups)
    out.push_back({group_title(g), make_key('R', tid, frame, g), "registers", g != "general"});
  return out;
}

Result<std::vector<VariableEntry>> EngineDebuggee::variables(const std::string& key) {
  auto k = parse_key(key);
  if (!k) return make_error("variables", "unknown container '" + key + "'");
  auto fs = frame_scope(k->tid, k->frame);
  if (!fs) return fs.error();
  std::string prefix = make_key('E', k->tid, k->frame);
  std::vector<VariableEntry> out;
  switch (k->kind) {
    case 'L': case 'G':
      for (const auto& nv : k->kind == 'L' ? fs->locals() : fs->globals())
        out.push_back(nv.value ? value_entry(nv.name, *nv.value, nv.name, prefix, *fs) : problem_entry(nv));
      break;
    case 'R': {
      const ArchDesc& arch = trace_->arch();
      for (const auto& r : fs->registers(k->payload)) {
        VariableEntry e;
        e.name = arch.regs[r.index].name;
        e.value = register_text(r.bytes, r.known);
        e.type = arch.regs[r.index].type;
        e.evaluate_name = "$" + e.name;
        out.push_back(std::move(e));
      }
      break;
    }
    case 'E': {
      auto v = evaluate_expression(k->payload, *fs);
      if (!v) return v.error();
      for (const auto& [name, expr] : child_expressions(*v, k->payload)) {
        auto cv = evaluate_expression(expr, *fs);
        if (cv) {
          out.push_back(value_entry(name, *cv, expr, prefix, *fs));
        } else {
          VariableEntry e;
          e.name = name;
          e.value = "<" + cv.error().message + ">";
          out.push_back(std::move(e));
        }
      }
      break;
    }
    default: return make_error("variables", "unknown container '" + key + "'");
  }
  return out;
}

Result<EvalResult> EngineDebuggee::evaluate(const std::string& expression, uint64_t tid, size_t frame) {
  auto fs = frame_scope(thread_or_current(tid), frame);
  if (!fs) return fs.error();
  auto v = evaluate_expression(expression, *fs);
  if (!v) return v.error();
  VariableEntry e = value_entry(expression, *v, expression, make_key('E', fs->tid(), frame), *fs);
  return EvalResult{e.value, e.type, e.children_key, e.memory_reference};
}

Result<DataTarget> EngineDebuggee::data_target(const std::string& expression, uint64_t tid, size_t frame) {
  auto fs = frame_scope(thread_or_current(tid), frame);
  if (!fs) return fs.error();
  auto v = evaluate_expression(expression, *fs);
  if (!v) return v.error();
  if (v->where != TypedValue::Where::Memory)
    return make_error("dataBreakpointInfo", "'" + expression + "' is not in memory (registers and computed values cannot be watched)");
  uint64_t len = v->type && v->type->size ? std::min<uint64_t>(v->type->size, 1 << 20) : 1;
  char where[64];
  std::snprintf(where, sizeof where, " (%" PRIu64 " bytes at 0x%" PRIx64 ")", len, v->addr);
  return DataTarget{v->addr, len, expression + where};
}

Result<DataTarget> EngineDebuggee::data_target_in(const std::string& container_key, const std::string& name) {
  auto k = parse_key(container_key);
  if (!k) return make_error("dataBreakpointInfo", "unknown container");
  if (k->kind == 'R') return make_error("dataBreakpointInfo", "registers cannot be watched; watch memory instead");
  if (k->kind == 'L' || k->kind == 'G') return data_target(name, k->tid, k->frame);
  auto fs = frame_scope(k->tid, k->frame);
  if (!fs) return fs.error();
  auto v = evaluate_expression(k->payload, *fs);
  if (!v) return v.error();
  for (const auto& [child, expr] : child_expressions(*v, k->payload))
    if (child == name) return data_target(expr, k->tid, k->frame);
  return make_error("dataBreakpointInfo", "no child '" + name + "' in " + k->payload);
}

}  // namespace ttd::dap
