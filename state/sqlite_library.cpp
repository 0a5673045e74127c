// The forwarding definitions of SQLite's functions (sqlite_library.h).
// Each has the signature <sqlite3.h> declares (a mismatch is a compile
// error); each pointer has the type of the header's declaration.
#include "state/sqlite_library.h"

#include <sqlite3.h>

#include <atomic>
#include <cstdarg>

#include "state/dynamic_library.h"

#ifndef TTD_SQLITE_SONAME
#error "TTD_SQLITE_SONAME (the soname to dlopen) is set by state/CMakeLists.txt"
#endif

namespace ttd::sqlite_library {
namespace {

#define TTD_SQLITE_FUNCTIONS(X)                                                                        \
  X(sqlite3_bind_int64) X(sqlite3_bind_null) X(sqlite3_bind_text) X(sqlite3_clear_bindings)            \
  X(sqlite3_close) X(sqlite3_column_blob) X(sqlite3_column_bytes) X(sqlite3_column_count)              \
  X(sqlite3_column_int64) X(sqlite3_column_text) X(sqlite3_column_type) X(sqlite3_config)              \
  X(sqlite3_errmsg) X(sqlite3_errstr) X(sqlite3_exec) X(sqlite3_finalize) X(sqlite3_limit)             \
  X(sqlite3_open_v2) X(sqlite3_prepare_v2) X(sqlite3_reset) X(sqlite3_step) X(sqlite3_table_column_metadata)

TTD_DEFINE_LIBRARY_API(TTD_SQLITE_FUNCTIONS)

const Api* api() {
  const Loaded& l = library();
  return l.status.ok() ? &l.api : nullptr;
}

const char* load_message() {
  static const std::string message = library().status.ok() ? std::string() : library().status.error().to_string();
  return message.c_str();
}

}  // namespace

std::string file() { return library_file_from_env("TTD_SQLITE_LIBRARY", TTD_SQLITE_SONAME); }
const Status& load() { return library().status; }
bool loaded() { return g_loaded; }

}  // namespace ttd::sqlite_library

using ttd::sqlite_library::api;
using ttd::sqlite_library::load_message;

// Forwards a call; `fallback` without the library.
#define TTD_FORWARD(fallback, name, ...) \
  const auto* a = api();                 \
  return a ? a->name(__VA_ARGS__) : fallback

extern "C" {

int sqlite3_bind_int64(sqlite3_stmt* s, int i, sqlite3_int64 v) { TTD_FORWARD(SQLITE_MISUSE, sqlite3_bind_int64, s, i, v); }
int sqlite3_bind_null(sqlite3_stmt* s, int i) { TTD_FORWARD(SQLITE_MISUSE, sqlite3_bind_null, s, i); }
int sqlite3_bind_text(sqlite3_stmt* s, int i, const char* t, int n, void (*d)(void*)) {
  TTD_FORWARD(SQLITE_MISUSE, sqlite3_bind_text, s, i, t, n, d);
}
int sqlite3_clear_bindings(sqlite3_stmt* s) { TTD_FORWARD(SQLITE_MISUSE, sqlite3_clear_bindings, s); }
int sqlite3_close(sqlite3* db) { TTD_FORWARD(SQLITE_OK, sqlite3_close, db); }
const void* sqlite3_column_blob(sqlite3_stmt* s, int c) { TTD_FORWARD(nullptr, sqlite3_column_blob, s, c); }
int sqlite3_column_bytes(sqlite3_stmt* s, int c) { TTD_FORWARD(0, sqlite3_column_bytes, s, c); }
int sqlite3_column_count(sqlite3_stmt* s) { TTD_FORWARD(0, sqlite3_column_count, s); }
sqlite3_int64 sqlite3_column_int64(sqlite3_stmt* s, int c) { TTD_FORWARD(0, sqlite3_column_int64, s, c); }
const unsigned char* sqlite3_column_text(sqlite3_stmt* s, int c) { TTD_FORWARD(nullptr, sqlite3_column_text, s, c); }
int sqlite3_column_type(sqlite3_stmt* s, int c) { TTD_FORWARD(SQLITE_NULL, sqlite3_column_type, s, c); }
int sqlite3_config(int op, ...) {
  const auto* a = api();
  if (!a || op != SQLITE_CONFIG_MEMSTATUS) return SQLITE_MISUSE;
  va_list ap;
  va_start(ap, op);
  int on = va_arg(ap, int);
  va_end(ap);
  return a->sqlite3_config(op, on);
}
const char* sqlite3_errmsg(sqlite3* db) {
  const auto* a = api();
  return a ? a->sqlite3_errmsg(db) : load_message();
}
const char* sqlite3_errstr(int rc) {
  const auto* a = api();
  return a ? a->sqlite3_errstr(rc) : load_message();
}
int sqlite3_exec(sqlite3* db, const char* sql, int (*cb)(void*, int, char**, char**), void* arg, char** err) {
  TTD_FORWARD(SQLITE_MISUSE, sqlite3_exec, db, sql, cb, arg, err);
}
int sqlite3_finalize(sqlite3_stmt* s) { TTD_FORWARD(SQLITE_OK, sqlite3_finalize, s); }
int sqlite3_limit(sqlite3* db, int id, int v) { TTD_FORWARD(-1, sqlite3_limit, db, id, v); }
int sqlite3_open_v2(const char* name, sqlite3** db, int flags, const char* vfs) {
  const auto* a = api();
  if (a) return a->sqlite3_open_v2(name, db, flags, vfs);
  // Like SQLite after a failed open: a handle for sqlite3_errmsg (which
  // returns the load message) and sqlite3_close (a no-op), never used else.
  static char no_library_handle;
  if (db) *db = reinterpret_cast<sqlite3*>(&no_library_handle);
  return SQLITE_CANTOPEN;
}
int sqlite3_prepare_v2(sqlite3* db, const char* sql, int n, sqlite3_stmt** st, const char** tail) {
  TTD_FORWARD(SQLITE_MISUSE, sqlite3_prepare_v2, db, sql, n, st, tail);
}
int sqlite3_reset(sqlite3_stmt* s) { TTD_FORWARD(SQLITE_MISUSE, sqlite3_reset, s); }
int sqlite3_step(sqlite3_stmt* s) { TTD_FORWARD(SQLITE_MISUSE, sqlite3_step, s); }
int sqlite3_table_column_metadata(sqlite3* db, const char* dbname, const char* table, const char* column,
                                  const char** type, const char** coll, int* notnull, int* pk, int* autoinc) {
  TTD_FORWARD(SQLITE_MISUSE, sqlite3_table_column_metadata, db, dbname, table, column, type, coll, notnull, pk,
              autoinc);
}

}  // extern "C"
