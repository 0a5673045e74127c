// The tables an export writes and the writers that encode them: JSON
// Lines, CSV (both to an OutputStream) and SQLite (a database file). A
// producer calls begin() once, then for each row one value per column in
// the table's order followed by end_row(), then finish(). Values are
// unsigned or signed 64-bit integers, text, or null (unknown / absent).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/export/output_stream.h"
#include "state/error.h"

namespace ttd::exporting {

enum class ColumnType : uint8_t {
  Unsigned,  // 0 .. 2^64-1; SQLite stores it as INTEGER (two's complement above 2^63-1)
  Signed,
  Text,
};

struct Column {
  std::string name;
  ColumnType type;
};

struct Table {
  std::string name;                  // SQLite table name
  std::vector<Column> columns;
  std::vector<std::string> indexes;  // columns SQLite indexes (index NAME_COLUMN)
  // A column unique and increasing in row order (steps' and syscalls' eid):
  // SQLite makes it the rowid (INTEGER PRIMARY KEY), so a lookup by it needs
  // no index and the value is not stored twice. "" = none.
  std::string key = {};
  // Indexed integer columns whose values never decrease from one row to
  // the next (the eid of mem and regs: rows come in EID order). SQLite's
  // writer builds their indexes as the rows come, without sorting; a row
  // that breaks the order is an error.
  std::vector<std::string> in_row_order = {};
};

// Facts about the export, stored by SQLite in the table export_info.
struct ExportSummary {
  std::string trace, format, arch, what;
  uint64_t from = 0, to = 0, rows = 0;
};

class RowWriter {
 public:
  virtual ~RowWriter() = default;
  virtual Status begin(const Table& t) = 0;
  virtual void u64(uint64_t v) = 0;
  virtual void i64(int64_t v) = 0;
  virtual void text(std::string_view s) = 0;
  virtual void null() = 0;
  // Ends the row; an error (a failed write) stops the export.
  virtual Status end_row() = 0;
  // Completes the output (indexes, header; rename into place).
  virtual Status finish(const ExportSummary& s) = 0;
};

enum class OutputFormat : uint8_t { Jsonl, Csv, Sqlite };
// "jsonl", "csv", "sqlite" (nullopt otherwise).
bool parse_output_format(std::string_view s, OutputFormat& out);

// path "" or "-": standard output (not for SQLite, which needs a file).
Result<std::unique_ptr<RowWriter>> make_row_writer(OutputFormat f, const std::string& path);

// JSON string body escaping (quotes not included), for text values.
void append_json_escaped(std::string& out, std::string_view s);

}  // namespace ttd::exporting
