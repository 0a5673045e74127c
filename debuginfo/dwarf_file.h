// Internal to debuginfo: the program's ELF file (opened by the one ELF
// reader, elf/elf_file.h) with the libdw handles over it: DWARF, when the
// file has .debug_info, and call-frame information. Loadable segments
// answer code reads.
//
// The libdw handles are made on first use, and DWARF only when the file
// has a DWARF section: libdw is opened on first use (state/dw_library.h),
// so symbolizing a pc of a program without DWARF never maps it, and
// eh_frame is parsed only to unwind. Like DebugInfo, not thread-safe.
#pragma once
#include <elfutils/libdw.h>
#include <gelf.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "elf/elf_file.h"
#include "state/error.h"

namespace ttd::dbg {

class DwarfFile {
 public:
  // Errors are elf::ElfFile::open's, naming the file as "the program".
  static Result<std::unique_ptr<DwarfFile>> open(const std::string& path);
  ~DwarfFile();
  DwarfFile(const DwarfFile&) = delete;
  DwarfFile& operator=(const DwarfFile&) = delete;

  const std::string& path() const { return file_.path(); }
  const elf::ElfFile& file() const { return file_; }
  Elf* elf() const { return file_.libelf(); }
  Dwarf* dwarf() const;  // nullptr without .debug_info
  // CFI from .debug_frame and from .eh_frame (either may be null).
  Dwarf_CFI* debug_cfi() const;
  Dwarf_CFI* eh_cfi() const;
  uint16_t machine() const { return file_.machine(); }
  bool is_64() const { return file_.is64(); }
  // Copies file-backed bytes of loadable segments at addr; returns how many
  // leading bytes were available.
  size_t read(uint64_t addr, uint8_t* dst, size_t len) const;
  // The file whose symbol table names functions: this one if it has a
  // .symtab, else its separate debug file (separate_debug_file.h) if found,
  // else this one (its .dynsym).
  const elf::ElfFile& symbol_file() const;

 private:
  explicit DwarfFile(elf::ElfFile file) : file_(std::move(file)) {}
  struct Segment {
    uint64_t vaddr = 0, filesz = 0, offset = 0;
  };
  elf::ElfFile file_;
  bool has_dwarf_sections_ = false;
  mutable bool dwarf_opened_ = false, eh_cfi_opened_ = false;
  mutable Dwarf* dwarf_ = nullptr;
  mutable Dwarf_CFI* debug_cfi_ = nullptr;
  mutable Dwarf_CFI* eh_cfi_ = nullptr;
  std::vector<Segment> segments_;
  // The separate debug file of a file without .symtab, when it has one.
  // Only its .symtab is used: its DWARF sections are compressed, and
  // reading them for one pc took a one-shot `ttd query` from 10 ms to
  // 530 ms and 8 MB to 48 MB (libc6-dbg's libc, 2026-11-27).
  std::unique_ptr<elf::ElfFile> debug_symbols_;
};

}  // namespace ttd::dbg
