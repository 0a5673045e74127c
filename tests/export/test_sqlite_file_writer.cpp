// The export's SQLite file writer (engine/export/sqlite_row_writer.cpp)
// against SQLite itself: files written with small pages (so trees have
// several levels, overflow chains and every page-boundary case) must pass
// PRAGMA integrity_check, hold the rows given, and answer through each
// index exactly what a scan without the index answers.
#include <doctest/doctest.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "engine/export/sqlite_file_writer.h"
#include "engine/export/sqlite_index_sorter.h"

using namespace ttd;
using namespace ttd::exporting;
namespace fs = std::filesystem;

namespace {

using Value = std::variant<std::monostate, int64_t, std::string>;  // NULL, INTEGER, TEXT
using Row = std::vector<Value>;

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/ttd-sqlite-writer-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

Status write_db(const std::string& path, const Table& t, const std::vector<Row>& rows, SqliteFileOptions o) {
  auto w = make_sqlite_file_writer(path, o);
  if (!w) return w.error();
  if (auto s = (*w)->begin(t); !s) return s;
  for (const Row& r : rows) {
    for (const Value& v : r) {
      if (auto* i = std::get_if<int64_t>(&v))
        (*w)->i64(*i);
      else if (auto* s = std::get_if<std::string>(&v))
        (*w)->text(*s);
      else
        (*w)->null();
    }
    if (auto s = (*w)->end_row(); !s) return s;
  }
  return (*w)->finish({"trace.ucir", "ucir", "x86_64", t.name, 0, rows.size(), rows.size()});
}

struct Db {
  sqlite3* db = nullptr;
  explicit Db(const std::string& path) { REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK); }
  ~Db() { sqlite3_close(db); }
  std::vector<Row> query(const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr);
    INFO(sql << ": " << std::string(sqlite3_errmsg(db)));
    REQUIRE(rc == SQLITE_OK);
    std::vector<Row> out;
    while (sqlite3_step(st) == SQLITE_ROW) {
      Row r;
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const int type = sqlite3_column_type(st, c);
        if (type == SQLITE_INTEGER)
          r.emplace_back(int64_t(sqlite3_column_int64(st, c)));
        else if (type == SQLITE_NULL)
          r.emplace_back(std::monostate{});
        else
          r.emplace_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, c)), size_t(sqlite3_column_bytes(st, c))));
      }
      out.push_back(std::move(r));
    }
    sqlite3_finalize(st);
    return out;
  }
};

// Everything SQLite can check of a file the writer made with these rows.
void check_db(const std::string& path, const Table& t, const std::vector<Row>& rows) {
  Db db(path);
  const auto ok = db.query("PRAGMA integrity_check");
  REQUIRE(ok.size() == 1);
  CHECK(std::get<std::string>(ok[0][0]) == "ok");
  CHECK(db.query("SELECT * FROM " + t.name + " ORDER BY rowid") == rows);
  for (const std::string& c : t.indexes) {
    const std::string idx = t.name + "_" + c;
    // The index's order and content, against SQLite's own sort of a scan.
    CHECK(db.query("SELECT " + c + ", rowid FROM " + t.name + " INDEXED BY " + idx + " ORDER BY " + c + ", rowid") ==
          db.query("SELECT " + c + ", rowid FROM " + t.name + " NOT INDEXED ORDER BY " + c + ", rowid"));
    // Lookups through the index (binary searches down the tree).
    for (size_t k = 0; k < rows.size(); k += 1 + rows.size() / 23) {
      std::string lit;
      const Value& v = rows[k][size_t(std::find_if(t.columns.begin(), t.columns.end(),
                                                   [&](const Column& col) { return col.name == c; }) -
                                      t.columns.begin())];
      if (auto* i = std::get_if<int64_t>(&v))
        lit = std::to_string(*i);
      else if (auto* s = std::get_if<std::string>(&v))
        lit = "'" + *s + "'";  // test text has no quotes
      else
        continue;
      CHECK(db.query("SELECT rowid FROM " + t.name + " INDEXED BY " + idx + " WHERE " + c + " = " + lit + " ORDER BY rowid") ==
            db.query("SELECT rowid FROM " + t.name + " NOT INDEXED WHERE " + c + " = " + lit + " ORDER BY rowid"));
    }
  }
  const auto info = db.query("SELECT value FROM export_info INDEXED BY sqlite_autoindex_export_info_1 WHERE key = 'rows'");
  REQUIRE(info.size() == 1);
  CHECK(std::get<std::string>(info[0][0]) == std::to_string(rows.size()));
}

const Table kMem{"mem",
                 {{"eid", ColumnType::Unsigned},
                  {"op", ColumnType::Text},
                  {"addr", ColumnType::Unsigned},
                  {"value", ColumnType::Text}},
                 {"eid", "addr", "op"},
                 "",
                 {"eid"}};  // built as the rows come (they are in EID order)
const Table kSteps{"steps", {{"eid", ColumnType::Unsigned}, {"pc", ColumnType::Unsigned}, {"attrs", ColumnType::Text}}, {"pc"}, "eid"};

// Rows like an export's: EIDs in order, addresses scattered (some above
// 2^63, stored negative, some NULL), values from absent to longer than a page.
std::vector<Row> mem_rows(size_t n, uint64_t seed, size_t max_value) {
  std::mt19937_64 rng(seed);
  std::vector<Row> rows;
  int64_t eid = 0;
  for (size_t i = 0; i < n; ++i) {
    eid += int64_t(rng() % 3);
    const uint64_t addr = rng() % 4 == 0 ? rng() : 0x400000 + rng() % 4096;
    Value value;
    if (rng() % 5) value = std::string(size_t(rng() % (max_value + 1)), "0123456789abcdef"[rng() % 16]);
    Value a = int64_t(addr);
    if (rng() % 11 == 0) a = std::monostate{};  // NULLs in an integer index sort first
    rows.push_back({eid, std::string(rng() % 2 ? "r" : "w"), a, value});
  }
  return rows;
}

}  // namespace

TEST_CASE("sqlite file writer: integers of every serial type read back") {
  TempDir d;
  const Table t{"ints", {{"v", ColumnType::Signed}}, {"v"}};
  std::vector<Row> rows;
  for (int64_t v : {int64_t(0), int64_t(1), int64_t(-1), int64_t(2), int64_t(127), int64_t(128), int64_t(-128),
                    int64_t(-129), int64_t(32767), int64_t(32768), int64_t(-32769), int64_t(8388607), int64_t(8388608),
                    int64_t(2147483647), int64_t(2147483648), int64_t(-2147483649), int64_t(0x7fffffffffff),
                    int64_t(0x800000000000), std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                    int64_t(0x0100000000000000), int64_t(0x00ffffffffffffff)})
    rows.push_back({v});
  const std::string path = (d.path / "ints.db").string();
  REQUIRE(write_db(path, t, rows, {}));
  check_db(path, t, rows);
}

TEST_CASE("sqlite file writer: multi-level trees, overflow, every fill at the page boundaries") {
  TempDir d;
  // Row counts 0..120 end a leaf exactly, one row before and one after, for
  // 1 KiB pages (leaves hold ~20 rows, index leaves ~80 entries, interior
  // pages ~70-90 children), and the larger ones end interior pages at
  // various fills: the held-back last page and divider cases of each level.
  // (512-byte pages cannot hold this table's schema on page 1.)
  std::vector<size_t> counts;
  for (size_t n = 0; n <= 120; ++n) counts.push_back(n);
  for (size_t n : {399u, 400u, 401u, 1000u, 2500u, 6000u, 6001u, 6002u, 30000u}) counts.push_back(n);
  for (uint32_t page : {1024u, 2048u}) {
    for (size_t n : counts) {
      CAPTURE(page);
      CAPTURE(n);
      const auto rows = mem_rows(n, n * 31 + page, n % 3 == 0 ? 3000 : 40);  // some values need overflow pages
      const std::string path = (d.path / ("m" + std::to_string(page) + "_" + std::to_string(n) + ".db")).string();
      REQUIRE(write_db(path, kMem, rows, {page, size_t(32) << 20}));
      check_db(path, kMem, rows);
      if (n == 30000 && page == 1024) {  // the sweep reached deep trees and overflow chains (dbstat: path "/" is the root)
        Db db(path);
        for (const char* tree : {"mem", "mem_addr", "mem_op"})
          CHECK(db.query(std::string("SELECT max(length(path)) >= 9 FROM dbstat WHERE name = '") + tree + "'") ==
                std::vector<Row>{{int64_t(1)}});
        CHECK(db.query("SELECT count(*) > 0 FROM dbstat WHERE name = 'mem' AND pagetype = 'overflow'") ==
              std::vector<Row>{{int64_t(1)}});
      }
      fs::remove(path);
    }
  }
}

TEST_CASE("sqlite file writer: the rowid column (INTEGER PRIMARY KEY), and long indexed text") {
  TempDir d;
  std::mt19937_64 rng(7);
  std::vector<Row> rows;
  int64_t eid = 3;
  for (size_t i = 0; i < 5000; ++i) {
    eid += 1 + int64_t(rng() % 4);
    Value attrs;
    if (i % 7 == 0) attrs = std::string(size_t(rng() % 2000), 'x');
    rows.push_back({eid, int64_t(0x401000 + rng() % 64), attrs});
  }
  const std::string path = (d.path / "steps.db").string();
  REQUIRE(write_db(path, kSteps, rows, {512, size_t(32) << 20}));
  check_db(path, kSteps, rows);
  Db db(path);
  CHECK(db.query("SELECT pk FROM pragma_table_info('steps') WHERE name = 'eid'") == std::vector<Row>{{int64_t(1)}});
  CHECK(db.query("SELECT pc FROM steps WHERE eid = " + std::to_string(std::get<int64_t>(rows[77][0]))) ==
        std::vector<Row>{{rows[77][1]}});

  // An indexed text column whose values overflow index pages too.
  const Table texts{"texts", {{"s", ColumnType::Text}}, {"s"}};
  std::vector<Row> trows;
  for (size_t i = 0; i < 700; ++i) trows.push_back({std::string(size_t(rng() % 900), char('a' + rng() % 3))});
  const std::string tpath = (d.path / "texts.db").string();
  REQUIRE(write_db(tpath, texts, trows, {512, size_t(32) << 20}));
  check_db(tpath, texts, trows);
}

TEST_CASE("sqlite file writer: index entries spilled in sorted runs and merged") {
  TempDir d;
  const auto rows = mem_rows(20000, 99, 24);
  const std::string path = (d.path / "spill.db").string();
  REQUIRE(write_db(path, kMem, rows, {4096, 4096}));  // a run every ~120 entries
  check_db(path, kMem, rows);
  // The spill files were unlinked: only the database is left.
  CHECK(std::distance(fs::directory_iterator(d.path), fs::directory_iterator{}) == 1);
}

TEST_CASE("sqlite file writer: a spill file that cannot grow stops the export naming it, nothing left") {
  TempDir d;
  const auto rows = mem_rows(20000, 5, 24);
  const std::string path = (d.path / "full.db").string();
  // RLIMIT_FSIZE stands in for a full disk (EFBIG as ENOSPC): the spill
  // file's small runs pass 64 KiB long before the database's 1 MiB buffer
  // is first written.
  struct rlimit old {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit low = old;
  low.rlim_cur = 64 * 1024;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &low) == 0);
  const auto s = write_db(path, kMem, rows, {4096, 4096});
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  REQUIRE_FALSE(s);
  const std::string msg = s.error().to_string();
  INFO(msg);
  CHECK(msg.find(path + ".tmp.") == 0);
  CHECK(msg.find("of the index sort") != std::string::npos);
  CHECK(fs::is_empty(d.path));
}

TEST_CASE("sqlite file writer: a rowid that does not increase is an error, and no file is left") {
  TempDir d;
  const std::string path = (d.path / "bad.db").string();
  const auto s = write_db(path, kSteps, {{int64_t(5), int64_t(1), std::string("a")}, {int64_t(5), int64_t(2), {}}}, {});
  REQUIRE_FALSE(s);
  CHECK(s.error().to_string().find("not above the previous row's") != std::string::npos);
  CHECK(s.error().to_string().find(path) != std::string::npos);
  CHECK(fs::is_empty(d.path));
}

TEST_CASE("sqlite file writer: an in-row-order index whose rows are out of order is an error") {
  TempDir d;
  const std::string path = (d.path / "order.db").string();
  const auto s = write_db(path, kMem, {{int64_t(7), std::string("r"), int64_t(1), {}}, {int64_t(6), std::string("w"), int64_t(2), {}}}, {});
  REQUIRE_FALSE(s);
  CHECK(s.error().to_string().find("eid is not an integer at or above the previous row's") != std::string::npos);
  CHECK(fs::is_empty(d.path));
}

TEST_CASE("sqlite index sorter: SQLite's order of NULL, integers, text, then rowid") {
  using sqlite_file::IndexKey;
  using sqlite_file::compare_index_keys;
  const IndexKey null{IndexKey::Null, 0, {}, 9}, neg{IndexKey::Int, -5, {}, 1}, pos{IndexKey::Int, 3, {}, 1},
      ab{IndexKey::Text, 0, "ab", 1}, abc{IndexKey::Text, 0, "abc", 0}, b{IndexKey::Text, 0, "b", 0};
  CHECK(compare_index_keys(null, neg) < 0);
  CHECK(compare_index_keys(neg, pos) < 0);
  CHECK(compare_index_keys(pos, ab) < 0);
  CHECK(compare_index_keys(ab, abc) < 0);
  CHECK(compare_index_keys(abc, b) < 0);
  CHECK(compare_index_keys({IndexKey::Int, 3, {}, 0}, pos) < 0);
}
