#include "formats/rvnblock/sqlite_db.h"

#include <sqlite3.h>

#include <cstring>
#include <fstream>
#include <utility>

namespace ttd::fmt::rvnblock {

namespace {
constexpr char kSqliteMagic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f',
                                   'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
}

Result<std::unique_ptr<SqliteDb>> SqliteDb::open_readonly(const std::string& path) {
  {
    std::ifstream f(path, std::ios::binary);
    if (!f) return make_error(path, "cannot open file");
    char head[16] = {};
    f.read(head, sizeof head);
    if (f.gcount() != sizeof head || std::memcmp(head, kSqliteMagic, sizeof head) != 0)
      return make_error(path,
                        "not an SQLite database (no 'SQLite format 3' header); a REVEN block "
                        "trace (rvnblock) is an SQLite file");
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return make_error(path, "cannot open SQLite database: " + msg);
  }
  return std::unique_ptr<SqliteDb>(new SqliteDb(path, db));
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

bool SqliteDb::has_table(std::string_view table) {
  // With a null column name SQLite only checks that the table exists.
  std::string t(table);
  return sqlite3_table_column_metadata(db_, nullptr, t.c_str(), nullptr, nullptr, nullptr, nullptr,
                                       nullptr, nullptr) == SQLITE_OK;
}

bool SqliteDb::has_column(std::string_view table, std::string_view column) {
  std::string t(table), c(column);
  return sqlite3_table_column_metadata(db_, nullptr, t.c_str(), c.c_str(), nullptr, nullptr,
                                       nullptr, nullptr, nullptr) == SQLITE_OK;
}

Result<SqliteStatement> SqliteDb::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), int(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return error("cannot query the database (" + std::string(sql) + ")");
  }
  return SqliteStatement(this, stmt);
}

std::string SqliteDb::last_message() const { return sqlite3_errmsg(db_); }

Error SqliteDb::error(std::string what) const {
  return make_error(path_, std::move(what) + ": " + last_message());
}

SqliteStatement::SqliteStatement(SqliteStatement&& o) noexcept
    : db_(std::exchange(o.db_, nullptr)), stmt_(std::exchange(o.stmt_, nullptr)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(stmt_);
    db_ = std::exchange(o.db_, nullptr);
    stmt_ = std::exchange(o.stmt_, nullptr);
  }
  return *this;
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

void SqliteStatement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool SqliteStatement::bind_int64(int index, int64_t value) {
  return sqlite3_bind_int64(stmt_, index, value) == SQLITE_OK;
}

StepResult SqliteStatement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return StepResult::Row;
  if (rc == SQLITE_DONE) return StepResult::Done;
  return StepResult::Failed;
}

bool SqliteStatement::column_is_null(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}

int64_t SqliteStatement::column_int64(int col) const { return sqlite3_column_int64(stmt_, col); }

std::string SqliteStatement::column_text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), size_t(n)) : std::string();
}

std::span<const uint8_t> SqliteStatement::column_blob(int col) const {
  const void* p = sqlite3_column_blob(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);
  if (!p || n <= 0) return {};
  return {static_cast<const uint8_t*>(p), size_t(n)};
}

int SqliteStatement::column_count() const { return sqlite3_column_count(stmt_); }

}  // namespace ttd::fmt::rvnblock
