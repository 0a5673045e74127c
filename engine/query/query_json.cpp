#include "engine/query/query_json.h"

#include <nlohmann/json.hpp>

#include "engine/query/query_text.h"

namespace ttd::query {

using Json = nlohmann::ordered_json;

namespace {
Json opt_hex(const std::optional<uint64_t>& v) { return v ? Json(hex(*v)) : Json(nullptr); }
}  // namespace

std::string register_value_text(const Trace& t, const RegisterWrite& w) {
  if (!w.value) return "unknown";
  if (auto v = register_value_u64(t, w)) return hex(*v);
  return hex_bytes(w.value->data(), w.value->size());
}

std::string to_json(const MemoryAccess& a) {
  Json j;
  j["eid"] = a.eid;
  j["thread"] = a.tid;
  j["pc"] = hex(a.pc);
  j["kind"] = access_kind_name(a.kind);
  j["addr"] = hex(a.addr);
  j["size"] = a.size;
  j["value"] = a.value ? Json(hex_bytes(a.value->data(), a.value->size())) : Json(nullptr);
  j["next"] = to_string(a.next);
  return j.dump();
}

std::string to_json(const Trace& t, const RegisterWrite& w) {
  Json j;
  j["eid"] = w.eid;
  j["thread"] = w.tid;
  j["pc"] = hex(w.pc);
  j["reg"] = t.arch().regs[w.reg].name;
  j["value"] = w.value ? Json(register_value_text(t, w)) : Json(nullptr);
  j["next"] = to_string(w.next);
  return j.dump();
}

std::string to_json(const Execution& e) {
  Json j;
  j["eid"] = e.eid;
  j["thread"] = e.tid;
  j["pc"] = hex(e.pc);
  j["kind"] = std::string(fmt::step_kind_name(e.kind));
  j["next"] = to_string(e.next);
  return j.dump();
}

std::string to_json(const Call& c) {
  Json j;
  j["index"] = c.index;
  j["thread"] = c.tid;
  j["depth"] = c.depth;
  j["function"] = opt_hex(c.function);
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

std::string to_text(const MemoryAccess& a) {
  std::string s = "EID " + std::to_string(a.eid) + "  thread " + std::to_string(a.tid) + "  pc " + hex(a.pc) + "  " +
                  access_kind_name(a.kind) + " " + hex(a.addr) + "+" + std::to_string(a.size);
  s += a.value ? " = " + hex_bytes(a.value->data(), a.value->size()) : " = ??";
  return s;
}

std::string to_text(const Trace& t, const RegisterWrite& w) {
  return "EID " + std::to_string(w.eid) + "  thread " + std::to_string(w.tid) + "  pc " + hex(w.pc) + "  " +
         t.arch().regs[w.reg].name + " = " + register_value_text(t, w);
}

std::string to_text(const Execution& e) {
  std::string s = "EID " + std::to_string(e.eid) + "  thread " + std::to_string(e.tid) + "  pc " + hex(e.pc);
  if (e.kind != fmt::StepKind::Instruction) s += "  " + std::string(fmt::step_kind_name(e.kind));
  return s;
}

std::string to_text(const Call& c) {
  std::string s(2 * c.depth, ' ');
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
