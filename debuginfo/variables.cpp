#include "debuginfo/variables.h"

#include <dwarf.h>

#include <cstdlib>
#include <cstring>

#include "debuginfo/dwarf_file.h"

namespace ttd::dbg {

namespace {
int decl_line(Dwarf_Die* die) {
  int line = 0;
  dwarf_decl_line(die, &line);
  return line;
}
bool is_declaration(Dwarf_Die* die) {
  Dwarf_Attribute a;
  bool flag = false;
  return dwarf_attr(die, DW_AT_declaration, &a) && dwarf_formflag(&a, &flag) == 0 && flag;
}
}  // namespace

bool VariableIndex::describe(Dwarf_Die* die, uint64_t file_pc, const DwarfExpr& frame_base, VariableDesc& out) {
  const char* name = dwarf_diename(die);
  if (!name) return false;
  out.name = name;
  out.type = types_.type_of(die);
  out.decl_line = decl_line(die);
  out.frame_base = frame_base;
  out.is_parameter = dwarf_tag(die) == DW_TAG_formal_parameter;
  Dwarf_Attribute a;
  if (dwarf_attr_integrate(die, DW_AT_const_value, &a)) {
    Dwarf_Block blk;
    Dwarf_Sword s = 0;
    if (dwarf_formblock(&a, &blk) == 0) {
      out.const_value = std::vector<uint8_t>(blk.data, blk.data + blk.length);
    } else if (dwarf_formsdata(&a, &s) == 0) {
      std::vector<uint8_t> b(std::max<uint64_t>(out.type->size, 1));
      for (size_t i = 0; i < b.size() && i < 8; ++i) b[i] = uint8_t(uint64_t(s) >> (8 * i));
      out.const_value = std::move(b);
    }
    return true;
  }
  if (dwarf_attr_integrate(die, DW_AT_location, &a)) {
    Dwarf_Op* ops = nullptr;
    size_t len = 0;
    int n = dwarf_getlocation_addr(&a, file_pc, &ops, &len, 1);
    if (n > 0) out.location = to_expr(ops, len);
    else out.has_location_list_gap = true;
  }
  return true;
}

std::vector<VariableDesc> VariableIndex::locals_at(uint64_t pc) {
  std::vector<VariableDesc> out;
  Dwarf* dw = elf_.dwarf();
  if (!dw) return out;
  uint64_t file_pc = pc - bias_;
  Dwarf_Die cu;
  if (!dwarf_addrdie(dw, file_pc, &cu)) return out;
  Dwarf_Die* scopes = nullptr;
  int n = dwarf_getscopes(&cu, file_pc, &scopes);
  if (n <= 0) return out;
  // The frame base of the innermost function (inlined functions share the
  // frame of the function they were inlined into).
  DwarfExpr frame_base;
  for (int i = 0; i < n; ++i) {
    if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram) continue;
    Dwarf_Attribute fb;
    Dwarf_Op* ops = nullptr;
    size_t len = 0;
    if (dwarf_attr_integrate(&scopes[i], DW_AT_frame_base, &fb) && dwarf_getlocation_addr(&fb, file_pc, &ops, &len, 1) > 0)
      frame_base = to_expr(ops, len);
    break;
  }
  std::vector<VariableDesc> params;
  for (int i = 0; i < n; ++i) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_compile_unit || tag == DW_TAG_partial_unit) break;
    Dwarf_Die child;
    if (dwarf_child(&scopes[i], &child) == 0) {
      do {
        int ct = dwarf_tag(&child);
        if (ct != DW_TAG_variable && ct != DW_TAG_formal_parameter) continue;
        VariableDesc v;
        if (!describe(&child, file_pc, frame_base, v)) continue;
        (ct == DW_TAG_formal_parameter ? params : out).push_back(std::move(v));
      } while (dwarf_siblingof(&child, &child) == 0);
    }
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) break;
  }
  std::free(scopes);
  for (auto& p : params) out.push_back(std::move(p));
  return out;
}

std::vector<VariableDesc> VariableIndex::cu_globals(Dwarf_Die* cu) {
  std::vector<VariableDesc> out;
  Dwarf_Die child;
  if (dwarf_child(cu, &child) != 0) return out;
  do {
    if (dwarf_tag(&child) != DW_TAG_variable || is_declaration(&child)) continue;
    VariableDesc v;
    if (!describe(&child, 0, {}, v)) continue;
    if (v.location.empty() && !v.const_value) continue;
    // Only static-address globals: DW_OP_addr needs the load bias added.
    for (auto& op : v.location)
      if (op.atom == DW_OP_addr) op.number += bias_;
    v.is_global = true;
    out.push_back(std::move(v));
  } while (dwarf_siblingof(&child, &child) == 0);
  return out;
}

std::vector<VariableDesc> VariableIndex::globals_at(uint64_t pc) {
  Dwarf* dw = elf_.dwarf();
  Dwarf_Die cu;
  if (!dw || !dwarf_addrdie(dw, pc - bias_, &cu)) return {};
  return cu_globals(&cu);
}

std::optional<VariableDesc> VariableIndex::global_named(uint64_t pc, std::string_view name) {
  for (auto& v : globals_at(pc))
    if (v.name == name) return v;
  Dwarf* dw = elf_.dwarf();
  if (!dw) return std::nullopt;
  Dwarf_Off off = 0, next = 0;
  size_t hsize = 0;
  while (dwarf_nextcu(dw, off, &next, &hsize, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dw, off + hsize, &cu))
      for (auto& v : cu_globals(&cu))
        if (v.name == name) return v;
    off = next;
  }
  return std::nullopt;
}

std::string VariableIndex::function_name(uint64_t pc) {
  Dwarf* dw = elf_.dwarf();
  Dwarf_Die cu;
  if (!dw || !dwarf_addrdie(dw, pc - bias_, &cu)) return {};
  Dwarf_Die* scopes = nullptr;
  int n = dwarf_getscopes(&cu, pc - bias_, &scopes);
  std::string name;
  for (int i = 0; i < n; ++i) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
      const char* s = dwarf_diename(&scopes[i]);
      if (s) name = s;
      break;
    }
  }
  std::free(scopes);
  return name;
}

}  // namespace ttd::dbg
