#include "debuginfo/dwarf_file.h"

#include <cstring>

namespace ttd::dbg {

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
  // A missing .debug_info is normal (stripped programs): dwarf stays null.
  f->dwarf_ = dwarf_begin_elf(f->elf(), DWARF_C_READ, nullptr);
  if (f->dwarf_) f->debug_cfi_ = dwarf_getcfi(f->dwarf_);
  f->eh_cfi_ = dwarf_getcfi_elf(f->elf());
  return f;
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
