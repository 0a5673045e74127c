// SQLite, opened on first use instead of at process start.
//
// The ttd_sqlite library defines the SQLite C functions ttd calls (the
// rvnblock reader and `ttd export --to sqlite`), each forwarding to the real
// function of the library opened with dlopen the first time any of them
// runs, as state/capstone_library.h does for Capstone: a one-shot query of
// any other format never maps libsqlite3 (about 3,000 relocations).
//
// When the library cannot be opened, or lacks a function: sqlite3_open_v2
// returns SQLITE_CANTOPEN and, as SQLite does, a handle that only
// sqlite3_errmsg and sqlite3_close accept; sqlite3_errmsg /
// sqlite3_errstr return load()'s message, which names the file; the other
// functions return SQLITE_MISUSE, 0 or nullptr. sqlite3_config forwards
// SQLITE_CONFIG_MEMSTATUS (its one int argument) only, the one option ttd
// sets; any other option returns SQLITE_MISUSE.
#pragma once
#include <string>

#include "state/error.h"

namespace ttd::sqlite_library {

// The file dlopen opens: $TTD_SQLITE_LIBRARY when set (a path or a soname),
// else the soname of the library the build found (libsqlite3.so.0).
std::string file();

// Opens the library and resolves every function ttd forwards, once per
// process (thread-safe); later calls return the first result.
const Status& load();

// True once the library is mapped (load() ran and succeeded).
bool loaded();

}  // namespace ttd::sqlite_library
