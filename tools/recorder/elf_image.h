// Reads a Linux ELF executable or shared object (the program interpreter):
// which architecture it is for, where its PT_LOAD segments go, what they
// contain, and which interpreter it asks for. The file is parsed by the
// shared reader (elf/elf_file.h, elf/elf_program.h); this adds what only a
// loader decides: the load bias, AT_PHDR and the start of brk. Knows
// nothing of Unicorn.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "state/arch.h"
#include "state/error.h"

namespace ttd::rec {

struct ElfSegment {
  uint64_t vaddr = 0;     // where the segment starts (load bias applied)
  uint64_t mem_size = 0;  // bytes in memory; past file_size they are zero (bss)
  std::vector<uint8_t> bytes;  // the segment's file bytes (p_filesz of them)
  uint8_t prot = 0;       // kProtRead | kProtWrite | kProtExec
};

struct ElfImage {
  std::string path;
  ArchId arch = ArchId::X86_64;
  uint64_t entry = 0;        // load bias applied
  uint64_t load_bias = 0;    // non-zero for position-independent (ET_DYN) files
  bool position_independent = false;  // ET_DYN
  uint64_t phdr_addr = 0;    // where the program headers are in memory (AT_PHDR)
  uint16_t phnum = 0, phentsize = 0;
  uint64_t end = 0;          // highest byte address of any segment + 1 (brk starts here)
  uint64_t max_align = 0;    // largest PT_LOAD p_align (Linux aligns ET_DYN load addresses to it)
  std::vector<ElfSegment> segments;
  std::string interp;        // PT_INTERP: the dynamic loader's path; empty if static
};

// Where Linux puts PIE executables when address randomization is off.
constexpr uint64_t kPieLoadBias = 0x555555554000ull;

// Loads `path`; ET_DYN files get `dyn_bias` added to every address.
// Fails with a message a user can act on, naming the file: missing,
// unreadable or a directory, not an ELF, 32-bit or big-endian ELF, an
// architecture other than x86-64 / aarch64, or a malformed header (with
// its byte offset).
Result<ElfImage> load_elf(const std::string& path, uint64_t dyn_bias = kPieLoadBias);
// Moves a position-independent image by `delta` bytes.
void rebase(ElfImage& img, uint64_t delta);

}  // namespace ttd::rec
