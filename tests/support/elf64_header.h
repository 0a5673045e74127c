// Test support: the file header of the small ELF64 little-endian
// executables tests build at run time (hostile or minimal programs). The
// program header table follows the header (e_phoff); callers set e_phnum,
// e_entry and whatever they mean to break.
#pragma once
#include <elf.h>

#include <cstring>

namespace ttd::test_elf {

inline Elf64_Ehdr header64(uint16_t machine, uint8_t elf_class = ELFCLASS64) {
  Elf64_Ehdr h{};
  std::memcpy(h.e_ident, ELFMAG, SELFMAG);
  h.e_ident[EI_CLASS] = elf_class;
  h.e_ident[EI_DATA] = ELFDATA2LSB;
  h.e_ident[EI_VERSION] = EV_CURRENT;
  h.e_type = ET_EXEC;
  h.e_machine = machine;
  h.e_version = EV_CURRENT;
  h.e_phoff = sizeof h;
  h.e_ehsize = sizeof h;
  h.e_phentsize = sizeof(Elf64_Phdr);
  return h;
}

}  // namespace ttd::test_elf
