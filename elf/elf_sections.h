// What ElfFile's section table holds, for the readers that need more than
// program headers: one section's bytes by name (XRay's xray_instr_map), the
// function symbols (XRay's function names, debuginfo's symbol table), and
// the relocated value of words inside a section (position-independent
// XRay maps). The walks are libelf's, so they live with ElfFile in elf/.
//
// Contract: a section or symbol libelf cannot read is skipped (a stripped
// or damaged table yields fewer symbols, never an error); a section found
// but unreadable is an error naming the file and the section. Nothing here
// throws.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "elf/elf_file.h"
#include "state/error.h"

namespace ttd::elf {

struct Section {
  size_t index = 0;      // in the section header table
  uint64_t address = 0;  // sh_addr
  std::vector<uint8_t> bytes;
};

// The first section called `name` that has file bytes (not SHT_NOBITS);
// nullopt when there is none.
Result<std::optional<Section>> find_section(const ElfFile& file, std::string_view name);

struct Symbol {
  std::string name;
  uint64_t value = 0, size = 0;
  uint8_t type = 0;     // STT_*
  uint16_t shndx = 0;   // SHN_UNDEF for an undefined symbol
};

// Where section `index` (a symbol's st_shndx) lies and whether it holds
// code (SHF_EXECINSTR); nullopt for an index the table does not have.
struct SectionPlace {
  uint64_t address = 0, size = 0;
  bool executable = false;
};
std::optional<SectionPlace> section_place(const ElfFile& file, size_t index);

// A symbol as the table holds it: `name` points into the file's string
// table and lives as long as `file`.
struct SymbolView {
  std::string_view name;
  uint64_t value = 0, size = 0;
  uint8_t type = 0;     // STT_*
  uint16_t shndx = 0;   // SHN_UNDEF for an undefined symbol
};

// Calls visit(const SymbolView&) for each named symbol of .symtab, or of
// .dynsym when the file has no .symtab (stripped programs), in table
// order, without copying names: a one-shot query that wants one function
// of libc's 10,000 debug symbols pays for no strings it drops. A name that
// runs past its string table is skipped, as libelf's elf_strptr would.
template <class Visit>
void for_each_symbol(const ElfFile& file, Visit&& visit);

// The named symbols of .symtab, or of .dynsym when the file has no
// .symtab (stripped programs), in table order.
std::vector<Symbol> symbols(const ElfFile& file);
// Whether the file has a .symtab (a stripped one has only .dynsym).
bool has_symtab(const ElfFile& file);

// The GNU build ID (.note.gnu.build-id) as lowercase hex; "" without one.
std::string build_id_hex(const ElfFile& file);

// Values the loader writes into words of `section` (by virtual address):
// RELATIVE relocations (load base 0 + addend) and 64-bit absolute ones
// (symbol + addend). In an object file only the section's own relocation
// sections count, since their offsets are section-relative.
std::unordered_map<uint64_t, uint64_t> relocated_words(const ElfFile& file, const Section& section);

namespace detail {
// The raw walk behind for_each_symbol; `visit` gets each SymbolView.
void walk_symbols(const ElfFile& file, void (*visit)(void*, const SymbolView&), void* ctx);
}  // namespace detail

template <class Visit>
void for_each_symbol(const ElfFile& file, Visit&& visit) {
  detail::walk_symbols(
      file, [](void* ctx, const SymbolView& s) { (*static_cast<std::remove_reference_t<Visit>*>(ctx))(s); }, &visit);
}

}  // namespace ttd::elf
