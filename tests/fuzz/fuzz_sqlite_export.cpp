// libFuzzer target for the SQLite export's writer (engine/export/
// sqlite_row_writer.cpp and the b-tree builder and index sorter behind
// it), which writes SQLite's file format itself. The input chooses a
// table (1-4 columns, their types, which are indexed, the rowid column,
// the in-row-order indexes), the page size and the sort's run size, and
// the rows: integers of every serial-type size, text of any bytes from
// empty to several pages (overflow chains), NULLs, and repeats of a row
// (thousands of rows from a few input bytes: interior pages of every
// tree). The file is then read back through SQLite: PRAGMA
// integrity_check must be "ok", the rows must read back as written and
// every index must answer as a scan does. A difference traps (a crash to
// libFuzzer). Rows that break the writer's contract (a rowid that does
// not increase, an in-row-order column that decreases, an indexed text
// too long for the sort's run) must be refused, with no file left.
//
// Values keep to their column's type, as the export's producers do (an
// integer column gets integers or NULL, a text column text or NULL); the
// RowWriter interface has no blob values, so blobs are not covered.
#include <fuzzer/FuzzedDataProvider.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "engine/export/sqlite_file_writer.h"
#include "fuzz_support.h"

using namespace ttd;
using namespace ttd::exporting;
namespace fs = std::filesystem;

namespace {

using Value = std::variant<std::monostate, int64_t, std::string>;  // NULL, INTEGER, TEXT
using Row = std::vector<Value>;

constexpr size_t kMaxRows = 6000;  // 512-byte pages: trees of 3-4 levels
constexpr size_t kMaxTextBytes = size_t(1) << 20;  // per input: keeps one run near 0.1 s (ASan)

struct Case {
  Table table;
  SqliteFileOptions opt;
  std::vector<bool> in_order;   // per column: an in-row-order index
  std::vector<bool> indexed;    // per column
  size_t key = 0;               // the rowid column, or columns.size()
  std::vector<Row> rows;
  std::vector<bool> as_unsigned;  // per row and column, flattened: written with u64()
  bool valid = true;            // the rows keep the writer's contract
};

// An integer of one of SQLite's size classes (1, 2, 3, 4, 6, 8 bytes;
// 0 and 1 have their own serial types), sign-extended.
int64_t sized_integer(FuzzedDataProvider& in) {
  static constexpr int kBytes[] = {0, 1, 2, 3, 4, 6, 8};
  const int n = kBytes[in.ConsumeIntegralInRange<int>(0, 6)];
  if (n == 0) return in.ConsumeBool() ? 1 : 0;
  uint64_t v = in.ConsumeIntegral<uint64_t>();
  if (n < 8) {
    const int shift = 64 - 8 * n;
    v = uint64_t(int64_t(v << shift) >> shift);
  }
  return int64_t(v);
}

std::string text_value(FuzzedDataProvider& in, size_t& text_budget) {
  if (in.ConsumeBool()) return in.ConsumeRandomLengthString(64);  // any bytes, NULs included
  // Long text from a pattern: page-sized and larger values cost no input.
  const size_t len = std::min(text_budget, size_t(in.ConsumeIntegralInRange<uint32_t>(0, 200000)));
  const uint8_t a = in.ConsumeIntegral<uint8_t>(), step = in.ConsumeIntegral<uint8_t>();
  std::string s(len, '\0');
  for (size_t i = 0; i < len; ++i) s[i] = char(a + step * (i % 251));
  return s;
}

Case make_case(FuzzedDataProvider& in) {
  Case c;
  static constexpr uint32_t kPages[] = {512, 1024, 2048, 4096, 65536};
  c.opt.page_size = kPages[in.ConsumeIntegralInRange<int>(0, 4)];
  c.opt.sort_run_bytes = size_t(1) << in.ConsumeIntegralInRange<int>(9, 22);
  const size_t cols = in.ConsumeIntegralInRange<size_t>(1, 4);
  c.table.name = "t";
  c.key = in.ConsumeIntegralInRange<size_t>(0, cols);  // == cols: no rowid column
  c.indexed.assign(cols, false);
  c.in_order.assign(cols, false);
  for (size_t i = 0; i < cols; ++i) {
    ColumnType type = ColumnType(in.ConsumeIntegralInRange<int>(0, 2));
    if (i == c.key && type == ColumnType::Text) type = ColumnType::Signed;  // the rowid is an integer
    c.table.columns.push_back({"c" + std::to_string(i), type});
    c.indexed[i] = in.ConsumeBool();
    if (c.indexed[i]) {
      c.table.indexes.push_back(c.table.columns[i].name);
      if (type != ColumnType::Text && in.ConsumeBool()) {
        c.in_order[i] = true;
        c.table.in_row_order.push_back(c.table.columns[i].name);
      }
    }
  }
  if (c.key < cols) c.table.key = c.table.columns[c.key].name;

  size_t text_budget = kMaxTextBytes;
  Row last(cols);
  const size_t run = std::max<size_t>(c.opt.sort_run_bytes, 1024);
  while (in.remaining_bytes() && c.rows.size() < kMaxRows) {
    const uint8_t op = in.ConsumeIntegral<uint8_t>();
    size_t repeat = 1;
    Row row(cols);  // not a copy of last: its text may be long, and most ops replace every value
    if (op < 32 && !c.rows.empty()) {  // repeat the last row, counting its integers up
      row = last;
      repeat = std::min(kMaxRows - c.rows.size(), size_t(in.ConsumeIntegralInRange<uint32_t>(1, 3000)));
      size_t row_text = 0;  // repeats copy the row's text: it counts against the budget each time
      for (const Value& v : row)
        if (auto* s = std::get_if<std::string>(&v)) row_text += s->size();
      if (row_text) repeat = std::min(repeat, text_budget / row_text);
      text_budget -= repeat * row_text;
    } else {
      for (size_t i = 0; i < cols; ++i) {
        const bool is_int = c.table.columns[i].type != ColumnType::Text;
        const uint8_t tag = in.ConsumeIntegral<uint8_t>();
        if (i == c.key || c.in_order[i]) {
          // Mostly ordered (a small step from the last), sometimes anything.
          const int64_t prev = c.rows.empty() ? 0 : std::get_if<int64_t>(&last[i]) ? std::get<int64_t>(last[i]) : 0;
          if (tag < 200)
            row[i] = int64_t(uint64_t(prev) + (i == c.key) + in.ConsumeIntegralInRange<uint64_t>(0, 1000));
          else if (tag < 250 || i == c.key)
            row[i] = sized_integer(in);
          else
            row[i] = std::monostate{};
        } else if (tag % 5 == 0) {
          row[i] = std::monostate{};
        } else if (is_int) {
          row[i] = sized_integer(in);
        } else {
          row[i] = text_value(in, text_budget);
          text_budget -= std::min(text_budget, std::get<std::string>(row[i]).size());  // short text may pass it
        }
      }
    }
    for (size_t r = 0; r < repeat; ++r) {
      if (op < 32 && !c.rows.empty())
        for (size_t i = 0; i < cols; ++i)
          if (auto* v = std::get_if<int64_t>(&row[i])) *v = int64_t(uint64_t(*v) + (i == c.key || (op & 1)));
      // The writer's contract, as sqlite_row_writer.cpp states it.
      for (size_t i = 0; i < cols; ++i) {
        const int64_t* v = std::get_if<int64_t>(&row[i]);
        const int64_t* p = std::get_if<int64_t>(&last[i]);
        if (i == c.key && p && *v <= *p) c.valid = false;  // p null: no row yet
        if (c.in_order[i] && (!v || (p && *v < *p))) c.valid = false;
        if (c.indexed[i] && !c.in_order[i])
          if (auto* s = std::get_if<std::string>(&row[i]); s && (s->size() + 24 > run / 2)) c.valid = false;
      }
      c.rows.push_back(row);
      for (size_t i = 0; i < cols; ++i) c.as_unsigned.push_back(c.table.columns[i].type == ColumnType::Unsigned);
      last = row;
    }
  }
  return c;
}

Status write_db(const std::string& path, const Case& c) {
  auto w = make_sqlite_file_writer(path, c.opt);
  if (!w) return w.error();
  if (auto s = (*w)->begin(c.table); !s) return s;
  size_t k = 0;
  for (const Row& r : c.rows) {
    for (const Value& v : r) {
      if (auto* i = std::get_if<int64_t>(&v))
        c.as_unsigned[k] ? (*w)->u64(uint64_t(*i)) : (*w)->i64(*i);
      else if (auto* s = std::get_if<std::string>(&v))
        (*w)->text(*s);
      else
        (*w)->null();
      ++k;
    }
    if (auto s = (*w)->end_row(); !s) return s;
  }
  return (*w)->finish({"trace", "fuzz", "x86_64", c.table.name, 0, c.rows.size(), c.rows.size()});
}

class Db {
 public:
  explicit Db(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) fuzz::fail("open");
  }
  ~Db() { sqlite3_close(db_); }
  // Rows of sql; bind: one value for its '?' (if any).
  std::vector<Row> query(const std::string& sql, const Value* bind = nullptr) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) fuzz::fail("prepare");
    if (bind) {
      if (auto* i = std::get_if<int64_t>(bind))
        sqlite3_bind_int64(st, 1, *i);
      else if (auto* s = std::get_if<std::string>(bind))
        sqlite3_bind_text(st, 1, s->data(), int(s->size()), SQLITE_STATIC);
      else
        sqlite3_bind_null(st, 1);
    }
    std::vector<Row> out;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      Row r;
      for (int k = 0; k < sqlite3_column_count(st); ++k) {
        const int type = sqlite3_column_type(st, k);
        if (type == SQLITE_INTEGER)
          r.emplace_back(int64_t(sqlite3_column_int64(st, k)));
        else if (type == SQLITE_NULL)
          r.emplace_back(std::monostate{});
        else if (type == SQLITE_TEXT)
          r.emplace_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, k)),
                                     size_t(sqlite3_column_bytes(st, k))));
        else
          fuzz::fail("a value of a type the writer never writes");
      }
      out.push_back(std::move(r));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) fuzz::fail("step");  // a corrupt page found while reading
    return out;
  }

 private:
  sqlite3* db_ = nullptr;
};

void check_db(const std::string& path, const Case& c) {
  Db db(path);
  const auto ok = db.query("PRAGMA integrity_check");
  if (ok.size() != 1 || ok[0][0] != Value(std::string("ok"))) fuzz::fail("integrity_check");
  if (db.query("SELECT * FROM t ORDER BY rowid") != c.rows) fuzz::fail("rows differ");
  for (size_t i = 0; i < c.table.columns.size(); ++i) {
    if (!c.indexed[i]) continue;
    const std::string col = c.table.columns[i].name, idx = "t_" + col;
    const std::string by = "SELECT " + col + ", rowid FROM t INDEXED BY " + idx + " ORDER BY " + col + ", rowid";
    const std::string scan = "SELECT " + col + ", rowid FROM t NOT INDEXED ORDER BY " + col + ", rowid";
    if (db.query(by) != db.query(scan)) fuzz::fail("index order differs from a scan's");
    // Lookups down the tree for a few rows' values (binary search over
    // every level: a misplaced divider shows here).
    for (size_t k = 0; k < c.rows.size(); k += 1 + c.rows.size() / 7) {
      const Value& v = c.rows[k][i];
      if (std::holds_alternative<std::monostate>(v)) continue;
      if (db.query("SELECT rowid FROM t INDEXED BY " + idx + " WHERE " + col + " = ? ORDER BY rowid", &v) !=
          db.query("SELECT rowid FROM t NOT INDEXED WHERE " + col + " = ? ORDER BY rowid", &v))
        fuzz::fail("index lookup differs from a scan's");
    }
  }
  const Value rows = std::to_string(c.rows.size());
  if (db.query("SELECT value FROM export_info WHERE key = 'rows'") != std::vector<Row>{{rows}})
    fuzz::fail("export_info rows");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "fuzz_sqlite_export-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) std::abort();
    std::atexit([] { fs::remove_all(dir); });
    return fs::path(tmpl);
  }();
  FuzzedDataProvider in(data, size);
  const Case c = make_case(in);
  const std::string path = (dir / "export.db").string();
  const Status s = write_db(path, c);
  if (!s) {
    // Refused: the contract was broken, or the schema needs more than a
    // 512-byte first page. Nothing may be left either way.
    const std::string msg = s.error().to_string();
    if (c.valid && msg.find("the schema does not fit the first page") == std::string::npos) fuzz::fail("refused valid rows");
    if (!fs::is_empty(dir)) fuzz::fail("a refused export left files");
    return 0;
  }
  if (!c.valid) fuzz::fail("accepted rows that break the contract");
  check_db(path, c);
  fs::remove(path);
  if (!fs::is_empty(dir)) fuzz::fail("files left beside the export");
  return 0;
}
