// libFuzzer target: arbitrary text through the DAP expression evaluator
// (the `evaluate` request, watch and hover expressions) against a small
// fake environment: an int, a pointer, a struct with a bit field, an array
// in memory, an array held in a register, and memory whose bytes are known
// or not by address. Nothing may crash (INT64_MIN / -1, shifts, stack
// depth, hostile indexes), and ASan/UBSan watch every operation.
// Seeds: tests/fuzz/corpus/dap_expression/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "dap/model/expression.h"

namespace {

using namespace ttd;
using namespace ttd::dap;
using K = dbg::TypeDesc::Kind;

dbg::TypeRef make_type(K kind, std::string name, uint64_t size, dbg::TypeRef target = nullptr, uint64_t count = 0) {
  auto t = std::make_shared<dbg::TypeDesc>();
  t->kind = kind;
  t->name = std::move(name);
  t->size = size;
  t->target = std::move(target);
  t->count = count;
  return t;
}

struct FakeScope : EvalScope {
  dbg::TypeRef int_t = builtin_type("int", 8);
  dbg::TypeRef node_t;
  FakeScope() {
    auto node = std::make_shared<dbg::TypeDesc>(*make_type(K::Struct, "struct node", 24));
    node->members.push_back({"value", 0, int_t, 0, 0});
    node->members.push_back({"flags", 4, builtin_type("unsigned", 8), 3, 5});
    // next points to a second struct (not to this one: a shared_ptr cycle
    // would be reported as a leak).
    auto leaf = std::make_shared<dbg::TypeDesc>(*make_type(K::Struct, "struct leaf", 8));
    leaf->members.push_back({"value", 0, int_t, 0, 0});
    node->members.push_back({"next", 8, pointer_to(leaf, 8), 0, 0});
    node->members.push_back({"far", 1u << 20, int_t, 0, 0});  // beyond the struct, as hostile DWARF might say
    node->members.push_back({"wide", 16, int_t, 70, 63});     // a bit field wider than 64 bits
    node->members.push_back({"shifted", 16, int_t, 4, 100});  // a bit offset past 64
    node_t = node;
  }
  std::optional<TypedValue> variable(const std::string& name) override {
    TypedValue v;
    v.where = TypedValue::Where::Memory;
    if (name == "x") return immediate(int_t, uint64_t(-5));
    if (name == "p") return immediate(pointer_to(int_t, 8), 0x1000);
    if (name == "n") {
      v.type = node_t;
      v.addr = 0x2000;
      return v;
    }
    if (name == "a") {
      v.type = make_type(K::Array, "int [4]", 16, int_t, 4);
      v.addr = 0x3000;
      return v;
    }
    if (name == "r") {  // an array held in hand, not in memory
      TypedValue h = immediate(make_type(K::Array, "short [4]", 8, builtin_type("short", 8), 4), 0x0004000300020001);
      return h;
    }
    if (name == "z") {  // zero-sized elements
      TypedValue h = immediate(make_type(K::Array, "struct empty [3]", 0, make_type(K::Struct, "struct empty", 0), 3), 0);
      return h;
    }
    return std::nullopt;
  }
  std::optional<TypedValue> reg(const std::string& name) override {
    if (name == "rax") return immediate(unsigned_type(8), 0x8000000000000000ull);
    if (name == "rsp") return immediate(unsigned_type(8), 0x7ffc0000);
    return std::nullopt;
  }
  void read(uint64_t addr, uint8_t* dst, uint8_t* known, size_t len) override {
    for (size_t i = 0; i < len; ++i) {
      uint64_t a = addr + i;
      dst[i] = uint8_t(a * 37);
      known[i] = (a >> 12) != 0xdead;  // one unknown page
    }
  }
  uint8_t ptr_size() const override { return 8; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FakeScope scope;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto v = evaluate_expression(text, scope);
  if (v) {
    // Everything an evaluate response then does with a value.
    std::vector<uint8_t> bytes, known;
    load_bytes(*v, scope, bytes, known);
    (void)dereference(*v, scope);
    (void)element_of(*v, int64_t(size) - 3, scope);
    (void)element_of(*v, INT64_MIN, scope);
    (void)member_of(*v, "flags", scope);
  }
  return 0;
}
