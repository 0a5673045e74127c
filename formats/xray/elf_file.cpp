#include "formats/xray/elf_file.h"

#include <cstring>

#include "elf/elf_file.h"

namespace ttd::fmt::xray {

namespace {

// Relocation types that store "load base + addend" (position-independent
// binaries with version 0/1 sleds) and "symbol + addend" (64-bit absolute).
bool is_relative(uint16_t machine, uint32_t type) {
  switch (machine) {
    case EM_X86_64:
      return type == R_X86_64_RELATIVE;
    case EM_AARCH64:
      return type == R_AARCH64_RELATIVE;
    case EM_PPC64:
      return type == R_PPC64_RELATIVE;
    case EM_386:
      return type == R_386_RELATIVE;
    case EM_ARM:
      return type == R_ARM_RELATIVE;
    case EM_RISCV:
      return type == 3;  // R_RISCV_RELATIVE
    case EM_LOONGARCH:
      return type == 3;  // R_LARCH_RELATIVE
    default:
      return false;
  }
}
bool is_absolute64(uint16_t machine, uint32_t type) {
  switch (machine) {
    case EM_X86_64:
      return type == R_X86_64_64;
    case EM_AARCH64:
      return type == R_AARCH64_ABS64;
    case EM_PPC64:
      return type == R_PPC64_ADDR64;
    default:
      return false;
  }
}

void read_symbols(Elf* elf, Elf_Scn* scn, const GElf_Shdr& sh, ElfInfo& out) {
  Elf_Data* d = elf_getdata(scn, nullptr);
  if (!d || sh.sh_entsize == 0) return;
  size_t n = sh.sh_size / sh.sh_entsize;
  for (size_t i = 0; i < n; ++i) {
    GElf_Sym sym;
    if (!gelf_getsym(d, int(i), &sym)) break;
    if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0) continue;
    const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
    if (!name || !*name) continue;
    uint64_t addr = sym.st_value;
    if (out.machine == EM_ARM) addr &= ~uint64_t(1);  // Thumb bit
    out.functions.emplace(addr, name);
  }
}

void read_relocations(Elf* elf, Elf_Scn* scn, const GElf_Shdr& sh, ElfInfo& out, Elf_Scn* symtab,
                      const GElf_Shdr* symtab_sh) {
  Elf_Data* d = elf_getdata(scn, nullptr);
  if (!d || sh.sh_entsize == 0) return;
  const ElfSection& m = *out.instr_map;
  uint64_t lo = m.address, hi = m.address + m.bytes.size();
  Elf_Data* syms = symtab ? elf_getdata(symtab, nullptr) : nullptr;
  size_t n = sh.sh_size / sh.sh_entsize;
  for (size_t i = 0; i < n; ++i) {
    GElf_Rela r;
    if (!gelf_getrela(d, int(i), &r)) break;
    if (r.r_offset < lo || r.r_offset >= hi) continue;
    uint32_t type = uint32_t(GELF_R_TYPE(r.r_info));
    if (is_relative(out.machine, type)) {
      out.relocations[r.r_offset] = uint64_t(r.r_addend);
    } else if (is_absolute64(out.machine, type) && syms && symtab_sh) {
      GElf_Sym sym;
      if (gelf_getsym(syms, int(GELF_R_SYM(r.r_info)), &sym))
        out.relocations[r.r_offset] = sym.st_value + uint64_t(r.r_addend);
    }
  }
}

}  // namespace

Result<ElfInfo> read_elf_for_xray(const std::string& path) {
  auto file = elf::ElfFile::open(path, "instrumented binary");
  if (!file) return file.error();
  Elf* elf = file->libelf();
  const GElf_Ehdr& eh = file->header();
  ElfInfo out;
  out.machine = file->machine();
  out.is64 = file->is64();
  out.little_endian = file->little_endian();
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0)
    return make_error(path, std::string("bad ELF section table: ") + elf_errmsg(-1));

  size_t map_index = 0;
  Elf_Scn *symtab = nullptr, *dynsym = nullptr;
  GElf_Shdr symtab_sh{}, dynsym_sh{};
  std::vector<std::pair<Elf_Scn*, GElf_Shdr>> relas;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (sh.sh_type == SHT_SYMTAB) symtab = scn, symtab_sh = sh;
    if (sh.sh_type == SHT_DYNSYM) dynsym = scn, dynsym_sh = sh;
    if (sh.sh_type == SHT_RELA) relas.emplace_back(scn, sh);
    if (name && std::strcmp(name, "xray_instr_map") == 0 && sh.sh_type != SHT_NOBITS) {
      Elf_Data* d = elf_getdata(scn, nullptr);
      if (!d) return make_error(path, std::string("cannot read xray_instr_map: ") + elf_errmsg(-1));
      ElfSection s;
      s.address = sh.sh_addr;
      if (d->d_buf && d->d_size) {
        const auto* b = static_cast<const uint8_t*>(d->d_buf);
        s.bytes.assign(b, b + d->d_size);
      }
      out.instr_map = std::move(s);
      map_index = elf_ndxscn(scn);
    }
  }
  if (symtab)
    read_symbols(elf, symtab, symtab_sh, out);
  else if (dynsym)
    read_symbols(elf, dynsym, dynsym_sh, out);
  if (out.instr_map) {
    Elf_Scn* syms = symtab ? symtab : dynsym;
    const GElf_Shdr* syms_sh = symtab ? &symtab_sh : (dynsym ? &dynsym_sh : nullptr);
    for (auto& [scn, sh] : relas) {
      // In an object file, offsets are relative to the section a relocation
      // section applies to; only the map's own relocations count there.
      if (eh.e_type == ET_REL && sh.sh_info != map_index) continue;
      read_relocations(elf, scn, sh, out, syms, syms_sh);
    }
  }
  return out;
}

}  // namespace ttd::fmt::xray
