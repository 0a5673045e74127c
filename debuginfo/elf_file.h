// Internal to debuginfo: an opened ELF file with its libelf/libdw handles.
// The file is mapped read-only; loadable segments answer code reads.
#pragma once
#include <elfutils/libdw.h>
#include <gelf.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd::dbg {

class ElfFile {
 public:
  static Result<std::unique_ptr<ElfFile>> open(const std::string& path);
  ~ElfFile();
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  const std::string& path() const { return path_; }
  Elf* elf() const { return elf_; }
  Dwarf* dwarf() const { return dwarf_; }  // nullptr without .debug_info
  // CFI from .debug_frame and from .eh_frame (either may be null).
  Dwarf_CFI* debug_cfi() const { return debug_cfi_; }
  Dwarf_CFI* eh_cfi() const { return eh_cfi_; }
  uint16_t machine() const { return machine_; }
  bool is_64() const { return is_64_; }
  // Copies file-backed bytes of loadable segments at addr; returns how many
  // leading bytes were available.
  size_t read(uint64_t addr, uint8_t* dst, size_t len) const;

 private:
  ElfFile() = default;
  struct Segment {
    uint64_t vaddr = 0, filesz = 0, offset = 0;
  };
  std::string path_;
  int fd_ = -1;
  const uint8_t* map_ = nullptr;
  size_t map_size_ = 0;
  Elf* elf_ = nullptr;
  Dwarf* dwarf_ = nullptr;
  Dwarf_CFI* debug_cfi_ = nullptr;
  Dwarf_CFI* eh_cfi_ = nullptr;
  uint16_t machine_ = 0;
  bool is_64_ = true;
  std::vector<Segment> segments_;
};

}  // namespace ttd::dbg
