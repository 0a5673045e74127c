// Unicorn, opened on first use instead of at process start.
//
// The ttd_unicorn library defines Unicorn's C functions itself (uc_open,
// uc_emu_start, uc_hook_add, ...: the ones <unicorn/unicorn.h> declares,
// but uc_ctl and uc_mmio_map), each forwarding to the real function of the
// library opened with dlopen the first time any of them runs. The recorder
// keeps calling the documented uc_* API; it links ttd_unicorn instead of
// libunicorn, so only `ttd record` maps libunicorn.so (19 MB, 82,000
// relocations: a third of every other command's start-up otherwise).
//
// When the library cannot be opened, or lacks a function: uc_open returns
// UC_ERR_ARCH and uc_strerror(any code) returns load()'s message, which
// names the file, so "cannot start Unicorn for x86_64: <why>" says what is
// missing. The other functions return UC_ERR_HANDLE (there is no engine).
#pragma once
#include <string>

#include "state/error.h"

namespace ttd::unicorn_library {

// The file dlopen opens: $TTD_UNICORN_LIBRARY when set (a path or a
// soname), else the soname of the library the build found with pkg-config
// (libunicorn.so.2 on Debian 12).
std::string file();

// Opens the library and resolves every function ttd forwards, once per
// process (thread-safe); later calls return the first result.
const Status& load();

// True once the library is mapped (load() ran and succeeded).
bool loaded();

}  // namespace ttd::unicorn_library
