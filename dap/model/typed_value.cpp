#include "dap/model/typed_value.h"

#include <map>
#include <memory>
#include <mutex>

#include "state/byte_order.h"

namespace ttd::dap {

namespace {
// The type caches are shared by every session of `ttd dap --listen`.
std::mutex cache_mutex;

dbg::TypeRef make(dbg::TypeDesc::Kind k, std::string name, uint64_t size, bool is_char = false) {
  auto t = std::make_shared<dbg::TypeDesc>();
  t->kind = k;
  t->name = std::move(name);
  t->size = size;
  t->is_char = is_char;
  return t;
}
}  // namespace

dbg::TypeRef builtin_type(std::string_view name, uint8_t p) {
  using K = dbg::TypeDesc::Kind;
  static std::map<std::pair<std::string, int>, dbg::TypeRef> cache;
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto key = std::make_pair(std::string(name), int(p));
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  struct Known {
    const char* name;
    K kind;
    uint64_t size;  // 0 = pointer size
    bool is_char;
  };
  static const Known table[] = {
      {"char", K::Signed, 1, true},           {"signed char", K::Signed, 1, true},  {"unsigned char", K::Unsigned, 1, true},
      {"short", K::Signed, 2, false},         {"unsigned short", K::Unsigned, 2, false},
      {"int", K::Signed, 4, false},           {"signed", K::Signed, 4, false},      {"unsigned", K::Unsigned, 4, false},
      {"unsigned int", K::Unsigned, 4, false}, {"long", K::Signed, 0, false},       {"unsigned long", K::Unsigned, 0, false},
      {"long long", K::Signed, 8, false},     {"unsigned long long", K::Unsigned, 8, false},
      {"int8_t", K::Signed, 1, false},        {"uint8_t", K::Unsigned, 1, false},   {"int16_t", K::Signed, 2, false},
      {"uint16_t", K::Unsigned, 2, false},    {"int32_t", K::Signed, 4, false},     {"uint32_t", K::Unsigned, 4, false},
      {"int64_t", K::Signed, 8, false},       {"uint64_t", K::Unsigned, 8, false},  {"size_t", K::Unsigned, 0, false},
      {"float", K::Float, 4, false},          {"double", K::Float, 8, false},       {"void", K::Void, 0, false},
      {"_Bool", K::Bool, 1, false},           {"bool", K::Bool, 1, false},
  };
  for (const Known& k : table) {
    if (name != k.name) continue;
    uint64_t size = k.kind == K::Void ? 0 : k.size ? k.size : p;
    auto t = make(k.kind, k.name, size, k.is_char);
    cache.emplace(key, t);
    return t;
  }
  return nullptr;
}

dbg::TypeRef pointer_to(const dbg::TypeRef& target, uint8_t p) {
  auto t = std::make_shared<dbg::TypeDesc>();
  t->kind = dbg::TypeDesc::Kind::Pointer;
  t->size = p;
  t->target = target;
  t->name = (target ? target->name : std::string("void")) + " *";
  return t;
}

dbg::TypeRef unsigned_type(uint64_t bytes) {
  static std::map<uint64_t, dbg::TypeRef> cache;
  std::lock_guard<std::mutex> lock(cache_mutex);
  if (auto it = cache.find(bytes); it != cache.end()) return it->second;
  auto t = make(dbg::TypeDesc::Kind::Unsigned, bytes <= 8 ? "uint" + std::to_string(bytes * 8) + "_t" : "uint" + std::to_string(bytes * 8), bytes);
  cache.emplace(bytes, t);
  return t;
}

TypedValue immediate(const dbg::TypeRef& type, uint64_t v) {
  TypedValue r;
  r.type = type;
  size_t n = type ? size_t(std::min<uint64_t>(type->size, 8)) : 8;
  r.bytes.resize(n);
  r.known.assign(n, 1);
  store_le(r.bytes.data(), v, n);
  return r;
}

}  // namespace ttd::dap
