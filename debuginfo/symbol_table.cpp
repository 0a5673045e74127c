#include "debuginfo/symbol_table.h"

#include <algorithm>

#include "debuginfo/dwarf_file.h"
#include "elf/elf_sections.h"

namespace ttd::dbg {

SymbolTable SymbolTable::build(const DwarfFile& f, uint64_t bias) {
  SymbolTable t;
  std::vector<FunctionSym> all;
  for (elf::Symbol& s : elf::symbols(f.symbol_file())) {
    if ((s.type != STT_FUNC && s.type != STT_GNU_IFUNC) || s.shndx == SHN_UNDEF || s.value == 0) continue;
    all.push_back({std::move(s.name), s.value + bias, s.size});
  }
  // One symbol per address: prefer one with a size, then the shorter name
  // (aliases like __libc_write / write: the public one is usually shorter).
  std::stable_sort(all.begin(), all.end(), [](const FunctionSym& a, const FunctionSym& b) {
    if (a.addr != b.addr) return a.addr < b.addr;
    if ((a.size != 0) != (b.size != 0)) return a.size != 0;
    return a.name.size() < b.name.size();
  });
  t.funcs_.reserve(all.size());
  for (auto& s : all) {
    if (!t.funcs_.empty() && t.funcs_.back().addr == s.addr) {
      t.aliases_.emplace_back(std::move(s.name), t.funcs_.size() - 1);  // aliases still resolve by name
      continue;
    }
    t.funcs_.push_back(std::move(s));
  }
  return t;
}

const FunctionSym* SymbolTable::function_at(uint64_t pc) const {
  auto it = std::upper_bound(funcs_.begin(), funcs_.end(), pc, [](uint64_t v, const FunctionSym& s) { return v < s.addr; });
  if (it == funcs_.begin()) return nullptr;
  const FunctionSym& s = *(it - 1);
  if (s.size ? pc < s.addr + s.size : (it == funcs_.end() || pc < it->addr)) return &s;
  return nullptr;
}

std::vector<const FunctionSym*> SymbolTable::lookup(std::string_view name) const {
  if (!by_name_built_) {
    by_name_built_ = true;
    by_name_.reserve(funcs_.size() + aliases_.size());
    for (size_t i = 0; i < funcs_.size(); ++i) by_name_.emplace(funcs_[i].name, i);
    for (const auto& [alias, i] : aliases_) by_name_.emplace(alias, i);
  }
  std::vector<const FunctionSym*> out;
  auto [b, e] = by_name_.equal_range(std::string(name));
  for (auto it = b; it != e; ++it) out.push_back(&funcs_[it->second]);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->addr < b->addr; });
  return out;
}

}  // namespace ttd::dbg
