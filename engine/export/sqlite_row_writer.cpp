// The SQLite row writer: one table per export plus export_info, filled in
// one transaction in a temporary file that is renamed onto the path after
// COMMIT (indexes are built after the rows: faster than maintaining them).
// Speed (docs/performance.md, "Export"): rows are buffered and inserted
// kBatchRows at a time by one multi-row INSERT bound once per batch (the
// per-statement cost of sqlite3_step/reset dominated one row per step),
// the connection has no mutexes (one thread uses it), 64 KiB pages, no
// journal and no syncs (the file has no name until it is complete).
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "engine/export/row_writer.h"

namespace ttd::exporting {

namespace {

constexpr size_t kBatchRows = 128;

class SqliteWriter : public RowWriter {
 public:
  SqliteWriter(std::string path, std::string temp) : path_(std::move(path)), temp_(std::move(temp)) {}
  ~SqliteWriter() override {
    if (ins_) sqlite3_finalize(ins_);
    if (batch_ins_) sqlite3_finalize(batch_ins_);
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
    // No allocation statistics (a global mutex per malloc); possible only
    // before SQLite initialises, harmless (SQLITE_MISUSE) after.
    static const int kNoMemStatus = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    (void)kNoMemStatus;
    if (sqlite3_open_v2(temp_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
        SQLITE_OK)
      return fail("cannot create " + temp_);
    // The file only gets its name after COMMIT, so a crash cannot leave a
    // half-written database under it: no need for a rollback journal or
    // for syncs (an error removes the file, nothing is rolled back).
    if (auto s = exec("PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
                      "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-16384; BEGIN");
        !s)
      return s;
    return {};
  }

  Status begin(const Table& t) override {
    table_ = t;
    std::string create = "CREATE TABLE " + t.name + " (", row = "(";
    for (size_t i = 0; i < t.columns.size(); ++i) {
      create += (i ? ", " : "") + t.columns[i].name + (t.columns[i].type == ColumnType::Text ? " TEXT" : " INTEGER");
      if (t.columns[i].name == t.key) create += " PRIMARY KEY";
      row += i ? ",?" : "?";
    }
    row += ")";
    if (auto s = exec(create + ")"); !s) return s;
    const std::string ins = "INSERT INTO " + t.name + " VALUES ";
    if (sqlite3_prepare_v2(db_, (ins + row).c_str(), -1, &ins_, nullptr) != SQLITE_OK) return fail("prepare insert");
    // As many rows per statement as the variable limit allows, up to kBatchRows.
    const size_t cols = std::max<size_t>(t.columns.size(), 1);
    batch_rows_ = std::min(kBatchRows, size_t(sqlite3_limit(db_, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) / cols);
    if (batch_rows_ > 1) {
      std::string many = ins;
      for (size_t r = 0; r < batch_rows_; ++r) many += (r ? "," : "") + row;
      if (sqlite3_prepare_v2(db_, many.c_str(), -1, &batch_ins_, nullptr) != SQLITE_OK) return fail("prepare insert");
    }
    values_.assign(std::max<size_t>(batch_rows_, 1) * cols, Value{});
    return {};
  }
  void u64(uint64_t v) override { next().set_int(int64_t(v)); }
  void i64(int64_t v) override { next().set_int(v); }
  void text(std::string_view s) override {
    Value& v = next();
    v.kind = Value::Text;
    v.text.assign(s);
  }
  void null() override { next().kind = Value::Null; }
  Status end_row() override {
    if (++rows_ < batch_rows_) return {};
    return flush_batch();
  }

  Status finish(const ExportSummary& s) override {
    if (auto st = flush_rest(); !st) return st;
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
    if (batch_ins_) sqlite3_finalize(batch_ins_);
    batch_ins_ = nullptr;
    if (sqlite3_close(db_) != SQLITE_OK) return fail("close");
    db_ = nullptr;
    if (std::rename(temp_.c_str(), path_.c_str()) != 0) return make_error(path_, "cannot rename " + temp_ + " into place");
    committed_ = true;
    return {};
  }

 private:
  struct Value {
    enum Kind : uint8_t { Null, Int, Text } kind = Null;
    int64_t i = 0;
    std::string text;  // capacity kept across rows
    void set_int(int64_t v) { kind = Int, i = v; }
  };

  Value& next() {
    const size_t at = used_++;
    return values_[at < values_.size() ? at : values_.size() - 1];  // a producer bug must not write out of bounds
  }
  // Binds values_[first, first + n) to parameters 1..n of stmt and runs it.
  Status run(sqlite3_stmt* stmt, size_t first, size_t n) {
    for (size_t k = 0; k < n; ++k) {
      const Value& v = values_[first + k];
      const int p = int(k + 1);
      if (v.kind == Value::Int)
        sqlite3_bind_int64(stmt, p, v.i);
      else if (v.kind == Value::Text)
        sqlite3_bind_text(stmt, p, v.text.data(), int(v.text.size()), SQLITE_STATIC);  // values_ outlives the step
      else
        sqlite3_bind_null(stmt, p);
    }
    const int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (rc != SQLITE_DONE) return fail("insert into " + table_.name);
    return {};
  }
  Status flush_batch() {
    Status s = batch_rows_ > 1 ? run(batch_ins_, 0, used_) : run(ins_, 0, used_);
    rows_ = used_ = 0;
    return s;
  }
  // The rows of a last, partial batch, one statement each.
  Status flush_rest() {
    const size_t cols = table_.columns.size();
    for (size_t r = 0; r < rows_; ++r)
      if (auto s = run(ins_, r * cols, cols); !s) return s;
    rows_ = used_ = 0;
    return {};
  }

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
  sqlite3_stmt* ins_ = nullptr;        // one row
  sqlite3_stmt* batch_ins_ = nullptr;  // batch_rows_ rows
  Table table_;
  size_t batch_rows_ = 1, rows_ = 0, used_ = 0;  // rows and values buffered
  std::vector<Value> values_;
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
