#include "debuginfo/type_desc.h"

#include <dwarf.h>

namespace ttd::dbg {

DwarfExpr to_expr(const Dwarf_Op* ops, size_t n) {
  DwarfExpr e;
  e.reserve(n);
  for (size_t i = 0; i < n; ++i) e.push_back({ops[i].atom, ops[i].number, ops[i].number2, ops[i].offset});
  return e;
}

namespace {
uint64_t udata(Dwarf_Die* die, unsigned name, uint64_t fallback = 0) {
  Dwarf_Attribute a;
  Dwarf_Word w = 0;
  if (!dwarf_attr_integrate(die, name, &a) || dwarf_formudata(&a, &w) != 0) return fallback;
  return w;
}
bool has(Dwarf_Die* die, unsigned name) {
  Dwarf_Attribute a;
  return dwarf_attr_integrate(die, name, &a) != nullptr;
}
std::string die_name(Dwarf_Die* die) {
  const char* n = dwarf_diename(die);
  return n ? n : "";
}
}  // namespace

TypeRef TypeBuilder::void_type() {
  if (!void_) {
    auto v = std::make_shared<TypeDesc>();
    v->kind = TypeDesc::Kind::Void;
    v->name = "void";
    void_ = v;
  }
  return void_;
}

TypeRef TypeBuilder::type_of(Dwarf_Die* die) {
  Dwarf_Attribute a;
  Dwarf_Die t;
  if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, &t)) return void_type();
  return build(&t);
}

TypeRef TypeBuilder::build(Dwarf_Die* die) {
  Dwarf_Off off = dwarf_dieoffset(die);
  if (auto it = cache_.find(off); it != cache_.end()) {
    // A type that refers to itself while it is being built (`struct node
    // { struct node *next; }`): the reference back does not own it, or
    // the shared_ptrs would form a cycle that is never freed. The cache
    // owns it as long as the DebugInfo lives.
    if (building_.count(off)) return TypeRef(TypeRef(), it->second.get());
    return it->second;
  }
  auto t = std::make_shared<TypeDesc>();
  cache_[off] = t;  // before recursing: recursive types find themselves
  building_.insert(off);
  struct Built {
    std::unordered_set<Dwarf_Off>& set;
    Dwarf_Off off;
    ~Built() { set.erase(off); }
  } built{building_, off};
  int tag = dwarf_tag(die);
  Dwarf_Word size = 0;
  if (dwarf_aggregate_size(die, &size) == 0) t->size = size;
  switch (tag) {
    case DW_TAG_base_type: {
      t->name = die_name(die);
      uint64_t enc = udata(die, DW_AT_encoding);
      switch (enc) {
        case DW_ATE_boolean: t->kind = TypeDesc::Kind::Bool; break;
        case DW_ATE_float: t->kind = TypeDesc::Kind::Float; break;
        case DW_ATE_signed_char: t->kind = TypeDesc::Kind::Signed; t->is_char = true; break;
        case DW_ATE_unsigned_char: t->kind = TypeDesc::Kind::Unsigned; t->is_char = true; break;
        case DW_ATE_signed: t->kind = TypeDesc::Kind::Signed; break;
        case DW_ATE_unsigned: t->kind = TypeDesc::Kind::Unsigned; break;
        default: t->kind = TypeDesc::Kind::Unknown; break;
      }
      if (t->name == "char") t->is_char = true;
      break;
    }
    case DW_TAG_pointer_type: case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type: {
      t->kind = TypeDesc::Kind::Pointer;
      if (t->size == 0) t->size = 8;
      t->target = type_of(die);
      t->name = t->target->name + (tag == DW_TAG_pointer_type ? " *" : " &");
      break;
    }
    case DW_TAG_typedef: case DW_TAG_const_type: case DW_TAG_volatile_type: case DW_TAG_restrict_type:
    case DW_TAG_atomic_type: {
      TypeRef inner = type_of(die);
      *t = *inner;  // resolve the alias, keep its spelling
      if (tag == DW_TAG_typedef) t->name = die_name(die);
      else if (tag == DW_TAG_const_type) t->name = "const " + inner->name;
      else if (tag == DW_TAG_volatile_type) t->name = "volatile " + inner->name;
      break;
    }
    case DW_TAG_structure_type: case DW_TAG_union_type: case DW_TAG_class_type: {
      t->kind = tag == DW_TAG_union_type ? TypeDesc::Kind::Union : TypeDesc::Kind::Struct;
      std::string n = die_name(die);
      t->name = std::string(tag == DW_TAG_union_type ? "union " : "struct ") + (n.empty() ? "<anonymous>" : n);
      Dwarf_Die child;
      if (dwarf_child(die, &child) == 0) {
        do {
          if (dwarf_tag(&child) != DW_TAG_member) continue;
          TypeDesc::Member m;
          m.name = die_name(&child);
          m.offset = udata(&child, DW_AT_data_member_location);
          m.type = type_of(&child);
          m.bit_size = uint32_t(udata(&child, DW_AT_bit_size));
          if (m.bit_size) {
            uint64_t bit = udata(&child, DW_AT_data_bit_offset);
            m.offset = bit / 8;
            m.bit_offset = uint32_t(bit % 8);
          }
          t->members.push_back(std::move(m));
        } while (dwarf_siblingof(&child, &child) == 0);
      }
      break;
    }
    case DW_TAG_enumeration_type: {
      t->kind = TypeDesc::Kind::Enum;
      std::string n = die_name(die);
      t->name = "enum " + (n.empty() ? std::string("<anonymous>") : n);
      Dwarf_Die child;
      if (dwarf_child(die, &child) == 0) {
        do {
          if (dwarf_tag(&child) != DW_TAG_enumerator) continue;
          Dwarf_Attribute a;
          Dwarf_Sword v = 0;
          if (dwarf_attr(&child, DW_AT_const_value, &a)) dwarf_formsdata(&a, &v);
          t->enumerators.push_back({int64_t(v), die_name(&child)});
        } while (dwarf_siblingof(&child, &child) == 0);
      }
      break;
    }
    case DW_TAG_array_type: {
      // Dimensions outermost first; build the element type from the inside.
      std::vector<uint64_t> dims;
      Dwarf_Die child;
      if (dwarf_child(die, &child) == 0) {
        do {
          if (dwarf_tag(&child) != DW_TAG_subrange_type) continue;
          uint64_t count = 0;
          if (has(&child, DW_AT_count)) count = udata(&child, DW_AT_count);
          else if (has(&child, DW_AT_upper_bound)) count = udata(&child, DW_AT_upper_bound) + 1 - udata(&child, DW_AT_lower_bound);
          dims.push_back(count);
        } while (dwarf_siblingof(&child, &child) == 0);
      }
      if (dims.empty()) dims.push_back(0);
      TypeRef elem = type_of(die);
      for (size_t i = dims.size(); i-- > 1;) {
        auto inner = std::make_shared<TypeDesc>();
        inner->kind = TypeDesc::Kind::Array;
        inner->target = elem;
        inner->count = dims[i];
        inner->size = elem->size * dims[i];
        inner->name = elem->name + " [" + std::to_string(dims[i]) + "]";
        elem = inner;
      }
      t->kind = TypeDesc::Kind::Array;
      t->target = elem;
      t->count = dims[0];
      if (t->size == 0) t->size = elem->size * dims[0];
      t->name = elem->name + " [" + (dims[0] ? std::to_string(dims[0]) : std::string()) + "]";
      break;
    }
    case DW_TAG_subroutine_type:
      t->kind = TypeDesc::Kind::Function;
      t->name = type_of(die)->name + " ()";
      break;
    default:
      t->kind = TypeDesc::Kind::Unknown;
      t->name = die_name(die).empty() ? "?" : die_name(die);
      break;
  }
  return t;
}

}  // namespace ttd::dbg
