#include "debuginfo/dwarf_file.h"

#include <cstring>
#include <string_view>

#include "debuginfo/separate_debug_file.h"
#include "elf/elf_sections.h"

namespace ttd::dbg {

namespace {

// Whether the file has a section libdw's dwarf_begin_elf could read DWARF
// from (.debug_*, compressed .zdebug_*, LTO's .gnu.debuglto_.debug_*): a
// superset of what it accepts, so a file without one gets the answer
// dwarf_begin_elf would give (no DWARF) without opening libdw.
// Calls visit(scn, header, name) for each section with a readable header
// and name until it returns false; false when the names cannot be read.
template <class Visit>
bool for_each_named_section(Elf* elf, Visit&& visit) {
  size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) return false;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* name = elf_strptr(elf, names, sh.sh_name);
    if (name && !visit(scn, sh, std::string_view(name))) break;
  }
  return true;
}

bool has_dwarf_sections(Elf* elf) {
  bool found = false;
  const bool named = for_each_named_section(elf, [&](Elf_Scn*, const GElf_Shdr&, std::string_view n) {
    found = n.starts_with(".debug_") || n.starts_with(".zdebug_") || n.starts_with(".gnu.debuglto_");
    return !found;
  });
  return found || !named;  // unreadable names: let libdw decide
}

// Whether every DWARF string section (.debug_str, .debug_line_str, or
// their compressed .zdebug_ forms) ends with a NUL, as one written by a
// compiler always does. libdw (elfutils 0.188) reads their strings with
// strlen: in a damaged file whose last string runs to the section's end,
// dwarf_getsrclines read past its buffer (fuzz_elf, 2026-11-29). Such a
// file's DWARF is not used, as if the program were stripped.
bool dwarf_strings_terminated(Elf* elf) {
  bool ok = true;
  const bool named = for_each_named_section(elf, [&](Elf_Scn* scn, const GElf_Shdr& sh, std::string_view n) {
    const bool gnu_compressed = n.starts_with(".zdebug_");
    if (gnu_compressed) n.remove_prefix(2);
    else if (n.starts_with(".debug_")) n.remove_prefix(7);
    else return true;
    if (n != "str" && n != "line_str" && n != "str.dwo" && n != "line_str.dwo") return true;
    // Compressed: the bytes libdw will read are the inflated ones.
    if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) return ok = false;
    if (gnu_compressed && elf_compress_gnu(scn, 0, 0) < 0) return ok = false;
    Elf_Data* d = elf_getdata(scn, nullptr);
    if (!d || d->d_size == 0) return true;
    ok = d->d_buf && static_cast<const char*>(d->d_buf)[d->d_size - 1] == 0;
    return ok;
  });
  return named && ok;
}

}  // namespace

Result<std::unique_ptr<DwarfFile>> DwarfFile::open(const std::string& path) {
  auto file = elf::ElfFile::open(path, "the program");
  if (!file) return file.error();
  std::unique_ptr<DwarfFile> f(new DwarfFile(std::move(*file)));
  // A damaged program header table leaves no segments: code reads then
  // come from the trace only, as for a truncated file's segments.
  if (auto phdrs = f->file_.program_headers()) {
    for (const GElf_Phdr& ph : *phdrs) {
      if (ph.p_type != PT_LOAD) continue;
      if (ph.p_offset > f->file_.file_size() || ph.p_filesz > f->file_.file_size() - ph.p_offset) continue;
      f->segments_.push_back({ph.p_vaddr, ph.p_filesz, ph.p_offset});
    }
  }
  f->has_dwarf_sections_ = has_dwarf_sections(f->elf()) && dwarf_strings_terminated(f->elf());
  if (!elf::has_symtab(f->file_)) {
    auto debug = open_separate_debug_file(f->file_);
    if (debug && elf::has_symtab(*debug)) f->debug_symbols_ = std::make_unique<elf::ElfFile>(std::move(*debug));
  }
  return f;
}

const elf::ElfFile& DwarfFile::symbol_file() const { return debug_symbols_ ? *debug_symbols_ : file_; }

Dwarf* DwarfFile::dwarf() const {
  // A missing .debug_info is normal (stripped programs): dwarf stays null.
  if (!dwarf_opened_) {
    dwarf_opened_ = true;
    if (has_dwarf_sections_) dwarf_ = dwarf_begin_elf(elf(), DWARF_C_READ, nullptr);
    if (dwarf_) debug_cfi_ = dwarf_getcfi(dwarf_);
  }
  return dwarf_;
}

Dwarf_CFI* DwarfFile::debug_cfi() const { return dwarf() ? debug_cfi_ : nullptr; }

Dwarf_CFI* DwarfFile::eh_cfi() const {
  if (!eh_cfi_opened_) {
    eh_cfi_opened_ = true;
    eh_cfi_ = dwarf_getcfi_elf(elf());
  }
  return eh_cfi_;
}

DwarfFile::~DwarfFile() {
  if (eh_cfi_) dwarf_cfi_end(eh_cfi_);
  if (dwarf_) dwarf_end(dwarf_);  // also frees debug_cfi_
}

size_t DwarfFile::read(uint64_t addr, uint8_t* dst, size_t len) const {
  size_t done = 0;
  while (done < len) {
    uint64_t a = addr + done;
    const Segment* seg = nullptr;
    for (const auto& s : segments_)
      if (a >= s.vaddr && a - s.vaddr < s.filesz) seg = &s;
    if (!seg) break;
    size_t n = size_t(std::min<uint64_t>(len - done, seg->vaddr + seg->filesz - a));
    auto bytes = file_.read(seg->offset + (a - seg->vaddr), n, "loadable segment");
    if (!bytes) break;
    std::memcpy(dst + done, bytes->data(), n);
    done += n;
  }
  return done;
}

}  // namespace ttd::dbg
