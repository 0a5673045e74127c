// Puts a static ELF into a fresh emulator the way Linux execve does: its
// PT_LOAD segments with their protections, an 8 MiB stack with argv, envp
// and auxv, and the pc and sp pointing at the entry and argc.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "state/error.h"
#include "tools/recorder/elf_image.h"
#include "tools/recorder/guest_arch.h"
#include "tools/recorder/guest_memory.h"

namespace ttd::rec {

struct LoadedProcess {
  uint64_t entry = 0;
  uint64_t sp = 0;
  uint64_t brk_base = 0;  // page after the highest segment: where the heap starts
};

Result<LoadedProcess> load_process(uc_engine* uc, GuestMemory& mem, const GuestArch& arch,
                                   const ElfImage& elf, const std::vector<std::string>& argv,
                                   const std::vector<std::string>& env, const std::string& exe_path);

}  // namespace ttd::rec
