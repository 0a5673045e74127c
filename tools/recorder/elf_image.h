// Reads a static Linux ELF executable: which architecture it is for, where
// its PT_LOAD segments go and what they contain. Knows nothing of Unicorn.
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
  uint64_t file_offset = 0;
  uint64_t file_size = 0;
  uint8_t prot = 0;       // kProtRead | kProtWrite | kProtExec
};

struct ElfImage {
  std::string path;
  ArchId arch = ArchId::X86_64;
  uint64_t entry = 0;        // load bias applied
  uint64_t load_bias = 0;    // non-zero for static-pie (ET_DYN) executables
  uint64_t phdr_addr = 0;    // where the program headers are in memory (AT_PHDR)
  uint16_t phnum = 0, phentsize = 0;
  uint64_t end = 0;          // highest byte address of any segment + 1 (brk starts here)
  std::vector<ElfSegment> segments;
  std::vector<uint8_t> file; // the whole file (static executables are small)
};

// Loads `path`. Fails with a message a user can act on: missing or
// unreadable file, not an ELF, 32-bit or big-endian ELF, an architecture
// other than x86-64 / aarch64, a dynamically linked executable ("only
// static executables are supported"), or a malformed header.
Result<ElfImage> load_elf(const std::string& path);

}  // namespace ttd::rec
