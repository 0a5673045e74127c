// libdw (elfutils' DWARF reader), opened on first use instead of at
// process start.
//
// The ttd_dw library defines the dwarf_* functions ttd calls (the ones
// <elfutils/libdw.h> declares and debuginfo/ uses), each forwarding to the
// real function of libdw opened with dlopen the first time any of them
// runs, as state/capstone_library.h does for Capstone. debuginfo/ calls
// libdw only for a file that has DWARF sections, and the call-frame tables
// only when it unwinds, so a query on a program without DWARF never maps
// libdw.so.1 and the liblzma and libbz2 it pulls in (about 2,900
// relocations and three objects of ld.so's start-up work). libelf, which
// every ELF read needs, stays linked.
//
// When the library cannot be opened, or lacks a function: every function
// answers as libdw does for data it cannot read (dwarf_begin_elf and
// dwarf_getcfi_elf return nullptr, int results -1, dwarf_dieoffset ~0), so
// the callers' "no DWARF" paths run, and the message naming the file is
// printed once on stderr ("ttd: ...: source lines, variables and DWARF
// call frames are not read"), since those callers only see a null handle.
#pragma once
#include <string>

#include "state/error.h"

namespace ttd::dw_library {

// The file dlopen opens: $TTD_DW_LIBRARY when set (a path or a soname),
// else the soname of the library the build found with pkg-config
// (libdw.so.1 on Debian 12).
std::string file();

// Opens the library and resolves every function ttd forwards, once per
// process (thread-safe); later calls return the first result. The error
// names the file and what is wrong.
const Status& load();

// True once the library is mapped (load() ran and succeeded); for tests
// that check a command never needed it.
bool loaded();

}  // namespace ttd::dw_library
