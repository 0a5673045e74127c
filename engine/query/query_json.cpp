#include "engine/query/query_json.h"

#include <nlohmann/json.hpp>

#include "engine/query/query_text.h"

namespace ttd::query {

using Json = nlohmann::ordered_json;

namespace {
Json opt_hex(const std::optional<uint64_t>& v) { return v ? Json(hex(*v)) : Json(nullptr); }

// Adds "sym" and "src" for pc where the symbolizer knows them.
void add_symbol(Json& j, uint64_t pc, const Symbolizer* symbols) {
  if (!symbols) return;
  auto s = symbols->at(pc);
  if (!s) return;
  if (auto sym = s->sym(); !sym.empty()) j["sym"] = sym;
  if (auto src = s->src(); !src.empty()) j["src"] = src;
}
}  // namespace

std::string pc_symbol_text(uint64_t pc, const Symbolizer* symbols) {
  if (!symbols) return "";
  auto s = symbols->at(pc);
  return s ? " " + s->text() : "";
}

std::string register_value_text(const Trace& t, const RegisterWrite& w) {
  if (!w.value) return "unknown";
  if (auto v = register_value_u64(t, w)) return hex(*v);
  return hex_bytes(w.value->data(), w.value->size());
}

std::string to_json(const MemoryAccess& a, const Symbolizer* symbols) {
  Json j;
  j["eid"] = a.eid;
  j["thread"] = a.tid;
  j["pc"] = hex(a.pc);
  add_symbol(j, a.pc, symbols);
  j["kind"] = access_kind_name(a.kind);
  j["addr"] = hex(a.addr);
  j["size"] = a.size;
  j["value"] = a.value ? Json(hex_bytes(a.value->data(), a.value->size())) : Json(nullptr);
  j["next"] = to_string(a.next);
  return j.dump();
}

std::string to_json(const Trace& t, const RegisterWrite& w, const Symbolizer* symbols) {
  Json j;
  j["eid"] = w.eid;
  j["thread"] = w.tid;
  j["pc"] = hex(w.pc);
  add_symbol(j, w.pc, symbols);
  j["reg"] = t.arch().regs[w.reg].name;
  j["value"] = w.value ? Json(register_value_text(t, w)) : Json(nullptr);
  j["next"] = to_string(w.next);
  return j.dump();
}

std::string to_json(const Execution& e, const Symbolizer* symbols) {
  Json j;
  j["eid"] = e.eid;
  j["thread"] = e.tid;
  j["pc"] = hex(e.pc);
  add_symbol(j, e.pc, symbols);
  j["kind"] = std::string(fmt::step_kind_name(e.kind));
  j["next"] = to_string(e.next);
  return j.dump();
}

std::string to_json(const Call& c, const Symbolizer* symbols) {
  Json j;
  j["index"] = c.index;
  j["thread"] = c.tid;
  j["depth"] = c.depth;
  j["function"] = opt_hex(c.function);
  if (c.function && c.symbol.empty()) add_symbol(j, *c.function, symbols);
  if (c.call_site) j["call_site"] = hex(c.call_site);
  if (!c.symbol.empty()) j["symbol"] = c.symbol;
  j["entry_eid"] = c.entry_eid;
  j["exit_eid"] = c.exit_eid ? Json(*c.exit_eid) : Json(nullptr);
  j["exit"] = call_exit_name(c.exit);
  j["return_value"] = opt_hex(c.return_value);
  if (!c.args.empty()) {
    Json args = Json::array();
    for (uint64_t a : c.args) args.push_back(hex(a));
    j["args"] = args;
  }
  return j.dump();
}

std::string to_json(const ValueMatch& m) {
  Json j;
  j["pid"] = m.pid;
  j["addr"] = hex(m.addr);
  return j.dump();
}

std::string to_json(const Appearance& a) {
  Json j;
  j["eid"] = a.eid;
  j["writer_eid"] = a.writer_eid ? Json(*a.writer_eid) : Json(nullptr);
  j["pid"] = a.pid;
  j["addr"] = hex(a.addr);
  return j.dump();
}

std::string to_text(const MemoryAccess& a, const Symbolizer* symbols) {
  std::string s = "EID " + std::to_string(a.eid) + "  thread " + std::to_string(a.tid) + "  pc " + hex(a.pc) +
                  pc_symbol_text(a.pc, symbols) + "  " +
                  access_kind_name(a.kind) + " " + hex(a.addr) + "+" + std::to_string(a.size);
  s += a.value ? " = " + hex_bytes(a.value->data(), a.value->size()) : " = ??";
  return s;
}

std::string to_text(const Trace& t, const RegisterWrite& w, const Symbolizer* symbols) {
  return "EID " + std::to_string(w.eid) + "  thread " + std::to_string(w.tid) + "  pc " + hex(w.pc) +
         pc_symbol_text(w.pc, symbols) + "  " +
         t.arch().regs[w.reg].name + " = " + register_value_text(t, w);
}

std::string to_text(const Execution& e, const Symbolizer* symbols) {
  std::string s = "EID " + std::to_string(e.eid) + "  thread " + std::to_string(e.tid) + "  pc " + hex(e.pc) +
                  pc_symbol_text(e.pc, symbols);
  if (e.kind != fmt::StepKind::Instruction) s += "  " + std::string(fmt::step_kind_name(e.kind));
  return s;
}

std::string to_text(const Call& c, const Symbolizer* symbols) {
  std::string s(2 * c.depth, ' ');
  std::optional<PcSymbol> known = c.symbol.empty() && c.function && symbols ? symbols->at(*c.function) : std::nullopt;
  if (known && !known->function.empty())
    s += known->sym() + " (" + hex(*c.function) + ")";
  else
    s += c.symbol.empty() ? (c.function ? hex(*c.function) : std::string("?")) : c.symbol;
  s += "  thread " + std::to_string(c.tid) + "  EID " + std::to_string(c.entry_eid) + "..";
  s += c.exit_eid ? std::to_string(*c.exit_eid) : std::string("(open)");
  if (c.exit == CallExit::Unwound || c.exit == CallExit::TailExit) s += std::string(" ") + call_exit_name(c.exit);
  if (c.return_value) s += "  -> " + hex(*c.return_value);
  if (!c.args.empty()) {
    s += "  args";
    for (uint64_t a : c.args) s += " " + hex(a);
  }
  return s;
}

}  // namespace ttd::query
