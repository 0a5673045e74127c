#include "elf/elf_sections.h"

#include <elf.h>

#include <algorithm>
#include <cstring>

namespace ttd::elf {

namespace {

// Relocation types that store "load base + addend" (position-independent
// binaries) and "symbol + addend" (64-bit absolute), per machine.
bool is_relative(uint16_t machine, uint32_t type) {
  switch (machine) {
    case EM_X86_64: return type == R_X86_64_RELATIVE;
    case EM_AARCH64: return type == R_AARCH64_RELATIVE;
    case EM_PPC64: return type == R_PPC64_RELATIVE;
    case EM_386: return type == R_386_RELATIVE;
    case EM_ARM: return type == R_ARM_RELATIVE;
    case EM_RISCV: return type == 3;      // R_RISCV_RELATIVE
    case EM_LOONGARCH: return type == 3;  // R_LARCH_RELATIVE
    default: return false;
  }
}

bool is_absolute64(uint16_t machine, uint32_t type) {
  switch (machine) {
    case EM_X86_64: return type == R_X86_64_64;
    case EM_AARCH64: return type == R_AARCH64_ABS64;
    case EM_PPC64: return type == R_PPC64_ADDR64;
    default: return false;
  }
}

// The section of type `type` (SHT_SYMTAB, SHT_DYNSYM) with readable data.
Elf_Scn* table_of_type(Elf* elf, uint32_t type, GElf_Shdr& sh) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn))
    if (gelf_getshdr(scn, &sh) && sh.sh_type == type && sh.sh_entsize != 0 && elf_getdata(scn, nullptr)) return scn;
  return nullptr;
}

}  // namespace

Result<std::optional<Section>> find_section(const ElfFile& file, std::string_view name) {
  Elf* elf = file.libelf();
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0)
    return make_error(file.path(), std::string("bad ELF section table: ") + elf_errmsg(-1));
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) continue;
    const char* n = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!n || name != n) continue;
    Elf_Data* d = elf_getdata(scn, nullptr);
    if (!d) return make_error(file.path(), "cannot read " + std::string(name) + ": " + elf_errmsg(-1));
    Section s;
    s.index = elf_ndxscn(scn);
    s.address = sh.sh_addr;
    if (d->d_buf && d->d_size) {
      const auto* b = static_cast<const uint8_t*>(d->d_buf);
      s.bytes.assign(b, b + d->d_size);
    }
    return std::optional<Section>(std::move(s));
  }
  return std::optional<Section>();
}

std::optional<SectionPlace> section_place(const ElfFile& file, size_t index) {
  GElf_Shdr sh;
  Elf_Scn* scn = index == 0 ? nullptr : elf_getscn(file.libelf(), index);
  if (!scn || !gelf_getshdr(scn, &sh)) return std::nullopt;
  return SectionPlace{sh.sh_addr, sh.sh_size, (sh.sh_flags & SHF_EXECINSTR) != 0};
}

namespace detail {

void walk_symbols(const ElfFile& file, void (*visit)(void*, const SymbolView&), void* ctx) {
  Elf* elf = file.libelf();
  GElf_Shdr sh;
  Elf_Scn* scn = table_of_type(elf, SHT_SYMTAB, sh);
  if (!scn) scn = table_of_type(elf, SHT_DYNSYM, sh);
  if (!scn) return;
  Elf_Data* d = elf_getdata(scn, nullptr);
  Elf_Scn* strscn = elf_getscn(elf, sh.sh_link);
  Elf_Data* strs = strscn ? elf_getdata(strscn, nullptr) : nullptr;
  if (!d || !d->d_buf || !strs || !strs->d_buf) return;
  const char* str = static_cast<const char*>(strs->d_buf);
  const size_t str_size = strs->d_size;
  auto name_at = [&](uint64_t off) -> std::string_view {
    if (off == 0 || off >= str_size) return {};
    const void* end = std::memchr(str + off, 0, str_size - off);
    return end ? std::string_view(str + off, static_cast<const char*>(end) - (str + off)) : std::string_view();
  };
  const size_t n = std::min<size_t>(sh.sh_size / sh.sh_entsize, d->d_size / sh.sh_entsize);
  // libelf has already put ELF_T_SYM data in host order; a 64-bit table is
  // read in place (memcpy: d_buf need not be aligned when mapped).
  const bool native64 = gelf_getclass(elf) == ELFCLASS64 && d->d_type == ELF_T_SYM && sh.sh_entsize == sizeof(Elf64_Sym);
  for (size_t i = 0; i < n; ++i) {
    SymbolView v;
    uint64_t name_off = 0;
    if (native64) {
      Elf64_Sym sym;
      std::memcpy(&sym, static_cast<const char*>(d->d_buf) + i * sizeof sym, sizeof sym);
      name_off = sym.st_name, v.value = sym.st_value, v.size = sym.st_size;
      v.type = uint8_t(ELF64_ST_TYPE(sym.st_info)), v.shndx = sym.st_shndx;
    } else {
      GElf_Sym sym;
      if (!gelf_getsym(d, int(i), &sym)) continue;
      name_off = sym.st_name, v.value = sym.st_value, v.size = sym.st_size;
      v.type = uint8_t(GELF_ST_TYPE(sym.st_info)), v.shndx = sym.st_shndx;
    }
    v.name = name_at(name_off);
    if (v.name.empty()) continue;
    visit(ctx, v);
  }
}

}  // namespace detail

std::vector<Symbol> symbols(const ElfFile& file) {
  std::vector<Symbol> out;
  for_each_symbol(file, [&](const SymbolView& s) { out.push_back({std::string(s.name), s.value, s.size, s.type, s.shndx}); });
  return out;
}

bool has_symtab(const ElfFile& file) {
  GElf_Shdr sh;
  return table_of_type(file.libelf(), SHT_SYMTAB, sh) != nullptr;
}

std::string build_id_hex(const ElfFile& file) {
  Elf* elf = file.libelf();
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE) continue;
    Elf_Data* d = elf_getdata(scn, nullptr);
    if (!d || !d->d_buf) continue;
    GElf_Nhdr nh;
    size_t name_at = 0, desc_at = 0;
    for (size_t off = 0; (off = gelf_getnote(d, off, &nh, &name_at, &desc_at)) > 0;) {
      if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || nh.n_descsz == 0 ||
          std::string_view(static_cast<const char*>(d->d_buf) + name_at, 3) != "GNU")
        continue;
      static const char kHex[] = "0123456789abcdef";
      std::string hex;
      const auto* b = static_cast<const uint8_t*>(d->d_buf) + desc_at;
      for (size_t i = 0; i < nh.n_descsz; ++i) {
        hex += kHex[b[i] >> 4];
        hex += kHex[b[i] & 15];
      }
      return hex;
    }
  }
  return "";
}

std::unordered_map<uint64_t, uint64_t> relocated_words(const ElfFile& file, const Section& section) {
  Elf* elf = file.libelf();
  std::unordered_map<uint64_t, uint64_t> out;
  const uint64_t lo = section.address, hi = section.address + section.bytes.size();
  GElf_Shdr syms_sh;
  Elf_Scn* syms_scn = table_of_type(elf, SHT_SYMTAB, syms_sh);
  if (!syms_scn) syms_scn = table_of_type(elf, SHT_DYNSYM, syms_sh);
  Elf_Data* syms = syms_scn ? elf_getdata(syms_scn, nullptr) : nullptr;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_entsize == 0) continue;
    if (file.header().e_type == ET_REL && sh.sh_info != section.index) continue;
    Elf_Data* d = elf_getdata(scn, nullptr);
    if (!d) continue;
    const size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < n; ++i) {
      GElf_Rela r;
      if (!gelf_getrela(d, int(i), &r)) break;
      if (r.r_offset < lo || r.r_offset >= hi) continue;
      const uint32_t type = uint32_t(GELF_R_TYPE(r.r_info));
      if (is_relative(file.machine(), type)) {
        out[r.r_offset] = uint64_t(r.r_addend);
      } else if (is_absolute64(file.machine(), type) && syms) {
        GElf_Sym sym;
        if (gelf_getsym(syms, int(GELF_R_SYM(r.r_info)), &sym)) out[r.r_offset] = sym.st_value + uint64_t(r.r_addend);
      }
    }
  }
  return out;
}

}  // namespace ttd::elf
