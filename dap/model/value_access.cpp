#include "dap/model/value_access.h"

#include <algorithm>

#include "debuginfo/value_render.h"

namespace ttd::dap {

using K = dbg::TypeDesc::Kind;

void load_bytes(const TypedValue& v, EvalScope& scope, std::vector<uint8_t>& bytes, std::vector<uint8_t>& known, size_t max) {
  if (v.where == TypedValue::Where::Immediate) {
    bytes = v.bytes;
    known = v.known;
    return;
  }
  size_t n = size_t(std::min<uint64_t>(v.type ? v.type->size : 0, max));
  bytes.assign(n, 0);
  known.assign(n, 0);
  if (n) scope.read(v.addr, bytes.data(), known.data(), n);
}

Result<int64_t> to_int(const TypedValue& v, EvalScope& scope) {
  if (!v.type) return eval_error("value has no type");
  if (v.type->kind == K::Array && v.where == TypedValue::Where::Memory) return int64_t(v.addr);  // decays to its address
  if (v.type->kind == K::Float) return eval_error("floating-point arithmetic is not supported");
  if (v.type->kind == K::Struct || v.type->kind == K::Union) return eval_error(v.type->name + " is not a number");
  std::vector<uint8_t> b, k;
  load_bytes(v, scope, b, k, 8);
  for (uint8_t x : k)
    if (!x) return eval_error("the value is unknown at this position (the trace does not record it)");
  uint64_t raw = dbg::load_le(b);
  size_t n = b.size();
  if (v.type->kind == K::Signed && n > 0 && n < 8) return int64_t(raw << (64 - 8 * n)) >> (64 - 8 * n);
  return int64_t(raw);
}

Result<TypedValue> dereference(const TypedValue& v, EvalScope& scope) {
  if (!v.type) return eval_error("value has no type");
  if (v.type->kind == K::Array) return element_of(v, 0, scope);
  if (v.type->kind != K::Pointer) return eval_error("cannot dereference a value of type " + v.type->name);
  auto p = to_int(v, scope);
  if (!p) return p.error();
  if (!v.type->target || v.type->target->kind == K::Void) return eval_error("cannot dereference a void pointer (cast it first)");
  if (v.type->target->kind == K::Function) return eval_error("cannot dereference a function pointer");
  TypedValue r;
  r.type = v.type->target;
  r.where = TypedValue::Where::Memory;
  r.addr = uint64_t(*p);
  return r;
}

Result<TypedValue> member_of(const TypedValue& v, const std::string& name, EvalScope& scope) {
  if (!v.type || (v.type->kind != K::Struct && v.type->kind != K::Union))
    return eval_error("'" + name + "': not a struct or union (" + (v.type ? v.type->name : "?") + ")");
  for (const auto& m : v.type->members) {
    if (m.name != name) continue;
    TypedValue r;
    r.type = m.type;
    if (m.bit_size == 0 && v.where == TypedValue::Where::Memory) {
      r.where = TypedValue::Where::Memory;
      r.addr = v.addr + m.offset;
      return r;
    }
    std::vector<uint8_t> b, k;
    load_bytes(v, scope, b, k);
    size_t size = size_t(m.type ? m.type->size : 0);
    if (m.bit_size == 0) {
      // Clamped to the bytes in hand (hostile DWARF may put a member
      // beyond its struct, or make offset + size wrap).
      size_t lo = std::min(b.size(), size_t(m.offset));
      size_t hi = std::max(lo, std::min(b.size(), size_t(m.offset + size)));
      r.bytes.assign(b.begin() + int64_t(lo), b.begin() + int64_t(hi));
      r.known.assign(k.begin() + int64_t(lo), k.begin() + int64_t(hi));
      return r;
    }
    // A bit field: gather the bytes it spans, shift, mask.
    uint64_t word = 0;
    bool all = true;
    size_t span = (m.bit_offset + m.bit_size + 7) / 8;
    for (size_t i = 0; i < span && i < 8; ++i) {
      size_t at = size_t(m.offset) + i;
      if (at >= b.size() || !k[at]) all = false;
      else word |= uint64_t(b[at]) << (8 * i);
    }
    if (m.bit_offset >= 64) return eval_error("bit field '" + name + "' lies outside its storage");
    uint64_t val = (word >> m.bit_offset) & (m.bit_size >= 64 ? ~0ull : ((1ull << m.bit_size) - 1));
    r = immediate(m.type, val);
    if (!all) r.known.assign(r.known.size(), 0);
    return r;
  }
  return eval_error(v.type->name + " has no member named '" + name + "'");
}

Result<TypedValue> element_of(const TypedValue& v, int64_t index, EvalScope& scope) {
  if (!v.type) return eval_error("value has no type");
  if (v.type->kind == K::Pointer) {
    auto base = dereference(v, scope);
    if (!base) return base;
    base->addr += wrap_mul(index, int64_t(base->type->size));
    return base;
  }
  if (v.type->kind != K::Array) return eval_error("cannot index a value of type " + v.type->name);
  dbg::TypeRef elem = v.type->target;
  uint64_t size = elem ? elem->size : 0;
  TypedValue r;
  r.type = elem;
  if (v.where == TypedValue::Where::Memory) {
    r.where = TypedValue::Where::Memory;
    r.addr = v.addr + wrap_mul(index, int64_t(size));
    return r;
  }
  // An array held in hand (a register, a member of one): bounds-checked
  // without overflow (index * size could wrap for a hostile index).
  if (index < 0 || size == 0 || uint64_t(index) >= v.bytes.size() / size || v.known.size() < v.bytes.size())
    return eval_error("index out of range");
  size_t at = size_t(uint64_t(index) * size);
  r.bytes.assign(v.bytes.begin() + int64_t(at), v.bytes.begin() + int64_t(at + size));
  r.known.assign(v.known.begin() + int64_t(at), v.known.begin() + int64_t(at + size));
  return r;
}

}  // namespace ttd::dap
