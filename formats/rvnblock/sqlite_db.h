// A thin RAII layer over the SQLite C API for the rvnblock reader: a
// read-only database handle and prepared statements whose failures come back
// as ttd::Error values naming the file. Nothing here knows the rvnblock
// schema.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "state/error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ttd::fmt::rvnblock {

class SqliteStatement;

class SqliteDb {
 public:
  // Opens path read-only. Checks the SQLite file magic first, because SQLite
  // itself accepts any empty or foreign file until the first query.
  static Result<std::unique_ptr<SqliteDb>> open_readonly(const std::string& path);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  const std::string& path() const { return path_; }
  bool has_table(std::string_view table);
  bool has_column(std::string_view table, std::string_view column);
  Result<SqliteStatement> prepare(std::string_view sql);
  // The last SQLite error message, for building Errors.
  std::string last_message() const;
  Error error(std::string what) const;

 private:
  SqliteDb(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
  std::string path_;
  sqlite3* db_ = nullptr;
};

enum class StepResult { Row, Done, Failed };

class SqliteStatement {
 public:
  SqliteStatement() = default;
  SqliteStatement(SqliteDb* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  SqliteStatement(SqliteStatement&& o) noexcept;
  SqliteStatement& operator=(SqliteStatement&& o) noexcept;
  ~SqliteStatement();

  void reset();
  bool bind_int64(int index, int64_t value);
  StepResult step();

  bool column_is_null(int col) const;
  int64_t column_int64(int col) const;
  std::string column_text(int col) const;
  std::span<const uint8_t> column_blob(int col) const;  // valid until the next step()
  int column_count() const;

 private:
  SqliteDb* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace ttd::fmt::rvnblock
