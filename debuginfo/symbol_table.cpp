#include "debuginfo/symbol_table.h"

#include <algorithm>

#include "debuginfo/dwarf_file.h"
#include "elf/elf_sections.h"

namespace ttd::dbg {

namespace {

// Which of two symbols at one address names it: one with a size, then the
// shorter name (aliases like __libc_write / write: the public one is
// usually shorter), then the first in the table.
template <class C>
bool names_address_first(const C& a, const C& b) {
  if ((a.size != 0) != (b.size != 0)) return a.size != 0;
  if (a.name.size() != b.name.size()) return a.name.size() < b.name.size();
  return a.order < b.order;
}

}  // namespace

SymbolTable SymbolTable::build(const DwarfFile& f, uint64_t bias) {
  SymbolTable t;
  elf::for_each_symbol(f.symbol_file(), [&](const elf::SymbolView& s) {
    if ((s.type != STT_FUNC && s.type != STT_GNU_IFUNC) || s.shndx == SHN_UNDEF || s.value == 0) return;
    t.candidates_.push_back({s.name, s.value + bias, s.size, t.candidates_.size()});
  });
  return t;
}

void SymbolTable::sort() const {
  if (sorted_) return;
  sorted_ = true;
  // Sorted as views, copied once: names are not copied before the sort
  // has set the aliases apart.
  std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) {
    if (a.addr != b.addr) return a.addr < b.addr;
    return names_address_first(a, b);
  });
  funcs_.reserve(candidates_.size());
  for (const Candidate& s : candidates_) {
    if (!funcs_.empty() && funcs_.back().addr == s.addr) {
      aliases_.emplace_back(std::string(s.name), funcs_.size() - 1);  // aliases still resolve by name
      continue;
    }
    funcs_.push_back({std::string(s.name), s.addr, s.size});
  }
  candidates_ = {};
}

const FunctionSym* SymbolTable::function_at(uint64_t pc) const {
  if (!sorted_ && !scanned_) {
    // The first lookup scans: the symbol the sorted table would find is the
    // one that names the highest address at or below pc.
    const Candidate* best = nullptr;
    for (const Candidate& c : candidates_) {
      if (c.addr > pc) continue;
      if (!best || c.addr > best->addr || (c.addr == best->addr && names_address_first(c, *best))) best = &c;
    }
    scanned_.emplace();  // marks the scan done even when nothing is found
    if (!best || (best->size && pc >= best->addr + best->size)) return nullptr;
    *scanned_ = FunctionSym{std::string(best->name), best->addr, best->size};
    return &*scanned_;
  }
  sort();
  auto it = std::upper_bound(funcs_.begin(), funcs_.end(), pc, [](uint64_t v, const FunctionSym& s) { return v < s.addr; });
  if (it == funcs_.begin()) return nullptr;
  const FunctionSym& s = *(it - 1);
  if (s.size ? pc < s.addr + s.size : (it == funcs_.end() || pc < it->addr)) return &s;
  return nullptr;
}

const std::vector<FunctionSym>& SymbolTable::functions() const {
  sort();
  return funcs_;
}

std::vector<const FunctionSym*> SymbolTable::lookup(std::string_view name) const {
  if (!by_name_built_) {
    by_name_built_ = true;
    sort();
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
