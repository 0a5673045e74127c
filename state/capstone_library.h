// Capstone, opened on first use instead of at process start.
//
// The ttd_capstone library defines Capstone's C functions itself (cs_open,
// cs_disasm, cs_free, ...: the ones <capstone/capstone.h> declares and ttd
// calls), each forwarding to the real function of the library opened with
// dlopen the first time any of them runs. Code that disassembles keeps
// calling the documented cs_* API; it links ttd_capstone instead of
// libcapstone, so a process that never disassembles never maps
// libcapstone.so (77,000 relocations, about a third of `ttd query`'s
// start-up on its own).
//
// When the library cannot be opened, or lacks a function: cs_open returns
// CS_ERR_ARCH (as for an architecture Capstone cannot disassemble), so the
// callers' "no disassembly" paths run; cs_strerror returns load()'s
// message; the message is printed once on stderr ("ttd: ...: instructions
// are not disassembled"), since those callers only see a cs_err.
#pragma once
#include <string>

#include "state/error.h"

namespace ttd::capstone_library {

// The file dlopen opens: $TTD_CAPSTONE_LIBRARY when set (a path or a
// soname), else the soname of the library the build found with pkg-config
// (libcapstone.so.4 on Debian 12).
std::string file();

// Opens the library and resolves every function ttd forwards, once per
// process (thread-safe); later calls return the first result. The error
// names the file and what is wrong.
const Status& load();

// True once the library is mapped (load() ran and succeeded); for tests
// that check a command never needed it.
bool loaded();

}  // namespace ttd::capstone_library
