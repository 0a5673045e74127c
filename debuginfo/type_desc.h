// Internal to debuginfo: builds TypeDesc trees from DWARF type DIEs, once
// per DIE (recursive types such as `struct node { struct node *next; }`
// share the cached node; the reference back to it does not own it, so a
// TypeRef stays valid only while the builder, i.e. its DebugInfo, lives).
#pragma once
#include <elfutils/libdw.h>

#include <unordered_map>
#include <unordered_set>

#include "debuginfo/debug_types.h"

namespace ttd::dbg {

class TypeBuilder {
 public:
  // The type named by die's DW_AT_type (void when absent).
  TypeRef type_of(Dwarf_Die* die);
  TypeRef build(Dwarf_Die* type_die);

 private:
  TypeRef void_type();
  std::unordered_map<Dwarf_Off, TypeRef> cache_;
  std::unordered_set<Dwarf_Off> building_;  // types whose build() has not returned yet
  TypeRef void_;
};

// Copies a libdw expression into our own representation.
DwarfExpr to_expr(const Dwarf_Op* ops, size_t n);

}  // namespace ttd::dbg
