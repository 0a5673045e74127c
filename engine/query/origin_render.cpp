#include "engine/query/origin_render.h"

#include <nlohmann/json.hpp>

#include "engine/query/query_text.h"
#include "state/target_value.h"

namespace ttd::query {

std::string origin_value_text(const Trace& t, const std::optional<std::vector<uint8_t>>& v) {
  if (!v) return "??";
  if (v->empty() || v->size() > 8) return v->empty() ? "??" : hex_bytes(v->data(), v->size());
  return hex(target_value_u64(t.arch().endian, v->data(), v->size()));
}

namespace {

std::string syscall_text(const OriginSyscall& s) {
  std::string out = s.name.empty() ? "syscall #" + std::to_string(s.number) : s.name;
  out += "(";
  for (size_t i = 0; i < s.args.size(); ++i) out += (i ? ", " : "") + hex(s.args[i]);
  out += ")";
  if (s.ret) out += " = " + hex(*s.ret);
  return out;
}

std::string step_text(const OriginStep& s, const PcSymbolizer& sym) {
  std::string out = "EID " + std::to_string(s.eid) + "  " + hex(s.pc);
  std::string place = sym ? pc_place_text(sym(s.pc)) : "";
  if (!place.empty()) out += " " + place;
  if (!s.insn.empty()) out += "  " + s.insn;
  return out;
}

std::string node_line(const Trace& t, const OriginNode& n, const PcSymbolizer& sym) {
  std::string out = n.role ? std::string(input_role_name(*n.role)) + ": " : "";
  if (n.kind == OriginKind::Constant) return out + n.constant + " " + origin_value_text(t, n.value) + " (constant)";
  if (n.loc.kind == OriginLocation::Kind::Constant) return out + "?? unknown: " + n.note;
  out += location_text(t, n.loc) + " = " + origin_value_text(t, n.value);
  switch (n.kind) {
    case OriginKind::Write: return out + "  <- " + step_text(*n.step, sym);
    case OriginKind::Split: return out + "  <- " + n.note + ":";
    case OriginKind::Syscall: return out + "  <- " + step_text(*n.step, sym) + "  syscall " + syscall_text(*n.syscall);
    case OriginKind::Initial: return out + "  <- initial state (" + n.note + ")";
    case OriginKind::Unknown:
      return out + "  <- unknown" + (n.step ? " at " + step_text(*n.step, sym) : "") + ": " + n.note;
    case OriginKind::Limit: return out + "  (not followed: " + n.note + ")";
    case OriginKind::Repeat:
      return out + "  <- " + (n.step ? step_text(*n.step, sym) : "") + "  (same as #" + std::to_string(*n.same_as) + " above)";
    case OriginKind::Constant: break;
  }
  return out;
}

void text_tree(const Trace& t, const OriginGraph& g, uint32_t id, const std::string& indent, bool last, bool root,
               const PcSymbolizer& sym, std::string& out) {
  const OriginNode& n = g.nodes[id];
  const std::string branch = root ? "" : (last ? "└─ " : "├─ ");
  out += indent + branch + "#" + std::to_string(id) + " " + node_line(t, n, sym) + "\n";
  const std::string child_indent = root ? "" : indent + (last ? "   " : "│  ");
  if (!n.note.empty() && (n.kind == OriginKind::Write || n.kind == OriginKind::Syscall))
    out += child_indent + "   (" + n.note + ")\n";
  for (size_t i = 0; i < n.inputs.size(); ++i)
    text_tree(t, g, n.inputs[i], child_indent, i + 1 == n.inputs.size(), false, sym, out);
}

nlohmann::json location_json(const Trace& t, const OriginNode& n) {
  switch (n.loc.kind) {
    case OriginLocation::Kind::Register: return {{"reg", t.arch().regs[n.loc.reg].name}};
    case OriginLocation::Kind::Memory: return {{"mem", {{"addr", hex(n.loc.range.addr)}, {"len", n.loc.range.len}}}};
    case OriginLocation::Kind::Constant: return {{"constant", n.constant.empty() ? nullptr : nlohmann::json(n.constant)}};
  }
  return nullptr;
}

nlohmann::json node_json(const Trace& t, const OriginGraph& g, uint32_t id, const PcSymbolizer& sym) {
  const OriginNode& n = g.nodes[id];
  nlohmann::json j;
  j["id"] = n.id;
  j["location"] = location_json(t, n);
  j["role"] = n.role ? nlohmann::json(input_role_name(*n.role)) : nlohmann::json(nullptr);
  j["at"] = n.at;
  j["thread"] = n.tid;
  j["value"] = n.value ? nlohmann::json(origin_value_text(t, n.value)) : nlohmann::json(nullptr);
  j["origin"] = origin_kind_name(n.kind);
  if (n.step) {
    nlohmann::json s = {{"eid", n.step->eid}, {"pc", hex(n.step->pc)}, {"thread", n.step->tid}};
    s["insn"] = n.step->insn.empty() ? nlohmann::json(nullptr) : nlohmann::json(n.step->insn);
    if (auto p = sym ? sym(n.step->pc) : std::nullopt) {
      if (!p->function.empty()) {
        s["function"] = p->function;
        s["offset"] = p->offset;
      }
      if (!p->file.empty()) {
        s["file"] = p->file;
        s["line"] = p->line;
      }
    }
    j["step"] = std::move(s);
  }
  if (n.syscall) {
    nlohmann::json a = nlohmann::json::array();
    for (uint64_t x : n.syscall->args) a.push_back(hex(x));
    j["syscall"] = {{"number", n.syscall->number},
                    {"name", n.syscall->name.empty() ? nlohmann::json(nullptr) : nlohmann::json(n.syscall->name)},
                    {"args", a},
                    {"ret", n.syscall->ret ? nlohmann::json(hex(*n.syscall->ret)) : nlohmann::json(nullptr)}};
  }
  if (!n.note.empty()) j["note"] = n.note;
  if (n.same_as) j["same_as"] = *n.same_as;
  nlohmann::json in = nlohmann::json::array();
  for (uint32_t c : n.inputs) in.push_back(node_json(t, g, c, sym));
  j["inputs"] = std::move(in);
  return j;
}

}  // namespace

std::string origin_to_text(const Trace& t, const OriginGraph& g, const PcSymbolizer& sym) {
  std::string out;
  if (g.nodes.empty()) return out;
  const OriginNode& r = g.nodes[0];
  out += "origin of " + location_text(t, r.loc) + " at EID " + std::to_string(r.at) + " (thread " + std::to_string(r.tid) +
         "; depth " + std::to_string(g.depth) + ", breadth " + std::to_string(g.breadth) + ", " +
         std::to_string(g.nodes.size()) + " nodes)\n";
  text_tree(t, g, 0, "", true, true, sym, out);
  if (g.truncated) out += "(limits cut some paths short; raise --depth, --breadth or --nodes to follow them)\n";
  return out;
}

std::string origin_to_json(const Trace& t, const OriginGraph& g, const PcSymbolizer& sym) {
  nlohmann::json j;
  j["trace"] = t.path();
  j["arch"] = t.arch().name;
  j["limits"] = {{"depth", g.depth}, {"breadth", g.breadth}, {"nodes", g.max_nodes}};
  j["node_count"] = g.nodes.size();
  j["truncated"] = g.truncated;
  j["root"] = g.nodes.empty() ? nlohmann::json(nullptr) : node_json(t, g, 0, sym);
  return j.dump();
}

}  // namespace ttd::query
