// Puts an ELF into a fresh emulator the way Linux execve does: its PT_LOAD
// segments with their protections, its program interpreter (ld.so) below
// the mmap base if it is dynamically linked, an 8 MiB stack with argv,
// envp and auxv, and the pc (the interpreter's entry, else the program's)
// and sp pointing at argc.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "state/error.h"
#include "tools/recorder/elf_image.h"
#include "tools/recorder/guest_arch.h"
#include "tools/recorder/guest_memory.h"
#include "tools/recorder/guest_proc_files.h"

namespace ttd::rec {

struct LoadedProcess {
  uint64_t entry = 0;        // where execution starts
  uint64_t program_entry = 0;  // the program's own entry (AT_ENTRY)
  std::string interp;        // the interpreter loaded, host path; empty if static
  uint64_t sp = 0;
  uint64_t brk_base = 0;  // page after the highest segment: where the heap starts
  ProcSelfLayout proc_self;  // where /proc/self/cmdline, environ and auxv come from
};

// `sysroot` prefixes the interpreter's path (a foreign architecture's
// loader, e.g. /usr/aarch64-linux-gnu); empty for the host's own.
Result<LoadedProcess> load_process(uc_engine* uc, GuestMemory& mem, const GuestArch& arch,
                                   const ElfImage& elf, const std::vector<std::string>& argv,
                                   const std::vector<std::string>& env, const std::string& execfn,
                                   const std::string& sysroot = "");

}  // namespace ttd::rec
