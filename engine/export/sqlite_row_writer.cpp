// The SQLite row writer: one table per export plus export_info, filled in
// one transaction in a temporary file that is renamed onto the path after
// COMMIT (indexes are built after the rows: faster than maintaining them).
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "engine/export/row_writer.h"

namespace ttd::exporting {

namespace {

class SqliteWriter : public RowWriter {
 public:
  SqliteWriter(std::string path, std::string temp) : path_(std::move(path)), temp_(std::move(temp)) {}
  ~SqliteWriter() override {
    if (ins_) sqlite3_finalize(ins_);
    if (db_) sqlite3_close(db_);
    if (!committed_) {
      ::unlink(temp_.c_str());
      ::unlink((temp_ + "-journal").c_str());
    }
  }

  Status open() {
    struct stat st {};
    if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      return make_error(path_, "is not a regular file; export writes regular files only");
    ::unlink(temp_.c_str());
    if (sqlite3_open_v2(temp_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
      return fail("cannot create " + temp_);
    // The file only gets its name after COMMIT, so a crash cannot leave a
    // half-written database under it: no need for the rollback journal on
    // disk or for syncs.
    if (auto s = exec("PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; BEGIN"); !s) return s;
    return {};
  }

  Status begin(const Table& t) override {
    table_ = t;
    std::string create = "CREATE TABLE " + t.name + " (", ins = "INSERT INTO " + t.name + " VALUES (";
    for (size_t i = 0; i < t.columns.size(); ++i) {
      create += (i ? ", " : "") + t.columns[i].name + (t.columns[i].type == ColumnType::Text ? " TEXT" : " INTEGER");
      ins += i ? ",?" : "?";
    }
    if (auto s = exec(create + ")"); !s) return s;
    if (sqlite3_prepare_v2(db_, (ins + ")").c_str(), -1, &ins_, nullptr) != SQLITE_OK) return fail("prepare insert");
    return {};
  }
  void u64(uint64_t v) override { sqlite3_bind_int64(ins_, ++col_, int64_t(v)); }
  void i64(int64_t v) override { sqlite3_bind_int64(ins_, ++col_, v); }
  void text(std::string_view s) override { sqlite3_bind_text(ins_, ++col_, s.data(), int(s.size()), SQLITE_TRANSIENT); }
  void null() override { sqlite3_bind_null(ins_, ++col_); }
  Status end_row() override {
    col_ = 0;
    int rc = sqlite3_step(ins_);
    sqlite3_reset(ins_);
    if (rc != SQLITE_DONE) return fail("insert into " + table_.name);
    return {};
  }

  Status finish(const ExportSummary& s) override {
    for (const auto& c : table_.indexes)
      if (auto st = exec("CREATE INDEX " + table_.name + "_" + c + " ON " + table_.name + "(" + c + ")"); !st) return st;
    if (auto st = exec("CREATE TABLE export_info (key TEXT PRIMARY KEY, value TEXT)"); !st) return st;
    sqlite3_stmt* info = nullptr;
    if (sqlite3_prepare_v2(db_, "INSERT INTO export_info VALUES (?, ?)", -1, &info, nullptr) != SQLITE_OK)
      return fail("prepare export_info");
    const std::pair<const char*, std::string> facts[] = {
        {"trace", s.trace}, {"format", s.format}, {"arch", s.arch}, {"what", s.what}, {"from_eid", std::to_string(s.from)},
        {"to_eid", std::to_string(s.to)}, {"rows", std::to_string(s.rows)}, {"complete", "1"}};
    for (const auto& [k, v] : facts) {
      sqlite3_bind_text(info, 1, k, -1, SQLITE_STATIC);
      sqlite3_bind_text(info, 2, v.c_str(), -1, SQLITE_TRANSIENT);
      int rc = sqlite3_step(info);
      sqlite3_reset(info);
      if (rc != SQLITE_DONE) {
        sqlite3_finalize(info);
        return fail("insert into export_info");
      }
    }
    sqlite3_finalize(info);
    if (auto st = exec("COMMIT"); !st) return st;
    sqlite3_finalize(ins_);
    ins_ = nullptr;
    if (sqlite3_close(db_) != SQLITE_OK) return fail("close");
    db_ = nullptr;
    if (std::rename(temp_.c_str(), path_.c_str()) != 0) return make_error(path_, "cannot rename " + temp_ + " into place");
    committed_ = true;
    return {};
  }

 private:
  Status exec(const std::string& sql) {
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) return fail(sql.substr(0, 40));
    return {};
  }
  Status fail(const std::string& what) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    return make_error(path_, "SQLite: " + what + ": " + msg + " (the partial database was removed)");
  }

  std::string path_, temp_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* ins_ = nullptr;
  Table table_;
  int col_ = 0;
  bool committed_ = false;
};

}  // namespace

std::unique_ptr<RowWriter> make_sqlite_row_writer_at(const std::string& path, const std::string& temp, Error& err) {
  auto w = std::make_unique<SqliteWriter>(path, temp);
  if (auto s = w->open(); !s) {
    err = s.error();
    return nullptr;
  }
  return w;
}

}  // namespace ttd::exporting
