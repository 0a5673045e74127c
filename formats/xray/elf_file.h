// The few things the XRay instrumentation map needs from an ELF file, read
// with libelf: machine and word size, one section's bytes and address, the
// relocations that land in that section, and the function symbols.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "state/error.h"

namespace ttd::fmt::xray {

struct ElfSection {
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};

struct ElfInfo {
  uint16_t machine = 0;  // EM_*
  bool is64 = true;
  bool little_endian = true;
  std::optional<ElfSection> instr_map;  // the xray_instr_map section, if present
  // Relocated values for words inside instr_map, by virtual address:
  // RELATIVE relocations (addend) and absolute ones (symbol + addend).
  std::unordered_map<uint64_t, uint64_t> relocations;
  // Function symbols from .symtab (else .dynsym): address -> name.
  std::unordered_map<uint64_t, std::string> functions;
};

Result<ElfInfo> read_elf_for_xray(const std::string& path);

}  // namespace ttd::fmt::xray
