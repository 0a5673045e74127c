#include "dap/model/value_view.h"

#include <cinttypes>
#include <cstdio>

#include "debuginfo/value_render.h"

namespace ttd::dap {

using K = dbg::TypeDesc::Kind;

namespace {

// Postfix chains (a.b, p->c, x[2]) bind tightest; anything else needs
// parentheses before a postfix operator is appended.
std::string operand(const std::string& e) {
  for (size_t i = 0; i < e.size(); ++i) {
    char c = e[i];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '[' || c == ']' || c == '$') continue;
    if (c == '-' && i + 1 < e.size() && e[i + 1] == '>') {
      ++i;
      continue;
    }
    return "(" + e + ")";
  }
  return e;
}

// Expands a pointer to a struct straight into the members, as C debuggers do.
bool points_to_aggregate(const TypedValue& v) {
  return v.type && v.type->kind == K::Pointer && v.type->target &&
         (v.type->target->kind == K::Struct || v.type->target->kind == K::Union);
}

}  // namespace

std::string value_text(const TypedValue& v, EvalScope& scope) {
  if (!v.type) return "<no type>";
  std::vector<uint8_t> b, k;
  size_t cap = v.type->kind == K::Array && !(v.type->target && v.type->target->is_char) ? 0 : 4096;
  load_bytes(v, scope, b, k, cap);
  bool integral = v.type->kind == K::Signed || v.type->kind == K::Unsigned || v.type->kind == K::Pointer;
  if (v.hex && integral && !v.type->is_char && !b.empty()) {
    for (uint8_t x : k)
      if (!x) return "<unknown>";
    char buf[40];
    std::snprintf(buf, sizeof buf, "0x%0*" PRIx64, int(std::min<size_t>(b.size(), 8) * 2), dbg::load_le(b));
    return buf;
  }
  dbg::MemoryReader mem = [&scope](uint64_t addr, uint8_t* dst, size_t len) {
    std::vector<uint8_t> known(len);
    scope.read(addr, dst, known.data(), len);
    for (uint8_t x : known)
      if (!x) return false;
    return true;
  };
  std::string s = dbg::render_value(*v.type, b, k, mem);
  if ((v.type->kind == K::Struct || v.type->kind == K::Union) && v.type->name.size()) return v.type->name + " {...}";
  return s;
}

VariableEntry value_entry(const std::string& name, const TypedValue& v, const std::string& evaluate_name,
                          const std::string& key_prefix, EvalScope& scope) {
  VariableEntry e;
  e.name = name;
  e.value = value_text(v, scope);
  e.type = v.type ? v.type->name : "";
  e.evaluate_name = evaluate_name;
  if (v.where == TypedValue::Where::Memory) e.memory_reference = v.addr;
  else if (v.type && v.type->kind == K::Pointer && e.value.rfind("0x", 0) == 0) {
    // A pointer's target is the interesting memory.
    std::vector<uint8_t> b, k;
    load_bytes(v, scope, b, k, 8);
    bool all = !k.empty();
    for (uint8_t x : k) all = all && x;
    if (all) e.memory_reference = dbg::load_le(b);
  }
  bool expandable = v.type && dbg::has_children(*v.type);
  if (expandable && v.type->kind == K::Pointer) {
    // Only a known, non-null pointer has something behind it.
    std::vector<uint8_t> b, k;
    load_bytes(v, scope, b, k, 8);
    bool all = !k.empty();
    for (uint8_t x : k) all = all && x;
    expandable = all && dbg::load_le(b) != 0;
  }
  if (expandable) e.children_key = key_prefix + evaluate_name;
  return e;
}

std::vector<std::pair<std::string, std::string>> child_expressions(const TypedValue& v, const std::string& expr) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!v.type) return out;
  std::string base = operand(expr);
  switch (v.type->kind) {
    case K::Struct: case K::Union:
      for (const auto& m : v.type->members)
        if (!m.name.empty()) out.emplace_back(m.name, base + "." + m.name);
      break;
    case K::Array: {
      uint64_t n = std::min<uint64_t>(v.type->count, 1000);
      for (uint64_t i = 0; i < n; ++i) out.emplace_back("[" + std::to_string(i) + "]", base + "[" + std::to_string(i) + "]");
      break;
    }
    case K::Pointer:
      if (points_to_aggregate(v)) {
        for (const auto& m : v.type->target->members)
          if (!m.name.empty()) out.emplace_back(m.name, base + "->" + m.name);
      } else {
        out.emplace_back("*" + expr, "*" + base);
      }
      break;
    default: break;
  }
  return out;
}

}  // namespace ttd::dap
