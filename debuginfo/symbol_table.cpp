#include "debuginfo/symbol_table.h"

#include <algorithm>

#include "debuginfo/elf_file.h"

namespace ttd::dbg {

namespace {
bool read_symbols(Elf* elf, Elf64_Word want, uint64_t bias, std::vector<FunctionSym>& out) {
  bool found = false;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    found = true;
    size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < n; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, int(i), &sym)) continue;
      int type = GELF_ST_TYPE(sym.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
      const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (!name || !*name) continue;
      out.push_back({name, sym.st_value + bias, sym.st_size});
    }
  }
  return found;
}
}  // namespace

SymbolTable SymbolTable::build(const ElfFile& f, uint64_t bias) {
  SymbolTable t;
  std::vector<FunctionSym> all;
  if (!read_symbols(f.elf(), SHT_SYMTAB, bias, all)) read_symbols(f.elf(), SHT_DYNSYM, bias, all);
  // One symbol per address: prefer one with a size, then the shorter name
  // (aliases like __libc_write / write: the public one is usually shorter).
  std::stable_sort(all.begin(), all.end(), [](const FunctionSym& a, const FunctionSym& b) {
    if (a.addr != b.addr) return a.addr < b.addr;
    if ((a.size != 0) != (b.size != 0)) return a.size != 0;
    return a.name.size() < b.name.size();
  });
  for (auto& s : all) {
    if (!t.funcs_.empty() && t.funcs_.back().addr == s.addr) {
      t.by_name_.emplace(s.name, t.funcs_.size() - 1);  // aliases still resolve by name
      continue;
    }
    t.by_name_.emplace(s.name, t.funcs_.size());
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
  std::vector<const FunctionSym*> out;
  auto [b, e] = by_name_.equal_range(std::string(name));
  for (auto it = b; it != e; ++it) out.push_back(&funcs_[it->second]);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->addr < b->addr; });
  return out;
}

}  // namespace ttd::dbg
