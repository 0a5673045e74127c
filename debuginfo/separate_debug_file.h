// Finds the separate debug file of a stripped ELF the way gdb does by
// build ID: Debian's -dbg / -dbgsym packages (libc6-dbg, coreutils-dbgsym)
// install the .symtab and DWARF stripped from /lib/x86_64-linux-gnu/libc.so.6
// as /usr/lib/debug/.build-id/NN/REST.debug, where NNREST is the file's GNU
// build ID in hex. Without it, functions of a stripped library that its
// .dynsym does not export (ld.so's _dl_start, libc's internal ones) show as
// bare addresses in calls, history, steps and the DAP stack. (ttd takes
// the debug file's .symtab; see DwarfFile::debug_symbols_ for why not DWARF.)
//
// Contract: the directories searched are $TTD_DEBUG_FILE_DIRECTORY
// (colon-separated) if set, else /usr/lib/debug. A candidate counts only if
// it is an ELF file with the same build ID. Returns it opened, nullopt when
// there is none; never an error (a missing debug file is the normal case).
#pragma once
#include <optional>

#include "elf/elf_file.h"

namespace ttd::dbg {

std::optional<elf::ElfFile> open_separate_debug_file(const elf::ElfFile& file);

}  // namespace ttd::dbg
