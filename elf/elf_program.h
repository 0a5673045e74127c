// What loaders and image readers need from an executable's program
// headers, read through ElfFile: whether the file is an executable for a
// machine the caller runs, its loadable segments, and its program
// interpreter. The recorder's loader, the engine's program image and the
// symbolizer's module layout all use these, so the checks exist once.
//
// Contract: every error names the file; one about a program header also
// gives its file offset and index ("at byte 120: program header 1: ...").
// Nothing here throws.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "elf/elf_file.h"
#include "state/error.h"

namespace ttd::elf {

// "x86-64", "aarch64", "riscv", ... or "e_machine N".
std::string machine_name(uint16_t machine);

// Refuses anything but a 64-bit little-endian executable or shared object
// (ET_EXEC, ET_DYN) with program headers, for one of `machines`:
// "unsupported architecture: riscv (<supported>)", "unsupported
// architecture: 32-bit ELF (<supported>)", "not an executable (ELF type 1)",
// "the file has no program headers", "bad program header entry size".
Status require_executable(const ElfFile& file, std::span<const uint16_t> machines, const std::string& supported);

struct LoadSegment {
  size_t index = 0;  // in the program header table
  GElf_Phdr header{};
};

// The PT_LOAD headers that occupy memory (p_memsz or p_filesz non-zero), in
// file order. Refused: file bytes outside the file, more file bytes than
// memory bytes, an address range that wraps.
Result<std::vector<LoadSegment>> load_segments(const ElfFile& file);

// PT_INTERP's path (the dynamic loader), empty for a static program.
// Refused: a path outside the file, empty or longer than 4096 bytes.
Result<std::string> interpreter(const ElfFile& file);

// The file offset of program header `index`, for error positions.
uint64_t program_header_offset(const ElfFile& file, size_t index);

}  // namespace ttd::elf
