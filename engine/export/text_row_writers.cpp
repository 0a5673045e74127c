// JSON Lines and CSV row writers over an OutputStream.
#include <charconv>

#include "engine/export/row_writer.h"
#include "engine/export/sqlite_file_writer.h"

namespace ttd::exporting {

void append_json_escaped(std::string& out, std::string_view s) {
  static const char* kHex = "0123456789abcdef";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(char(c));
    } else if (c < 0x20) {
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(char(c));
    }
  }
}

namespace {

// Fields are built in `row_` and handed to the stream once per row.
class TextRowWriter : public RowWriter {
 public:
  explicit TextRowWriter(std::unique_ptr<OutputStream> out) : out_(std::move(out)) {}
  Status begin(const Table& t) override {
    table_ = t;
    return out_->status();
  }
  Status finish(const ExportSummary&) override { return out_->commit(); }
  Status end_row() override {
    close_row();
    out_->append(row_);
    row_.clear();
    col_ = 0;
    return out_->status();
  }

 protected:
  void number(uint64_t v) {
    char b[24];
    auto r = std::to_chars(b, b + sizeof b, v);
    row_.append(b, r.ptr);
  }
  void number(int64_t v) {
    char b[24];
    auto r = std::to_chars(b, b + sizeof b, v);
    row_.append(b, r.ptr);
  }
  virtual void close_row() = 0;

  std::unique_ptr<OutputStream> out_;
  Table table_;
  std::string row_;
  size_t col_ = 0;
};

class JsonlWriter : public TextRowWriter {
 public:
  using TextRowWriter::TextRowWriter;
  void u64(uint64_t v) override { key(), number(v); }
  void i64(int64_t v) override { key(), number(v); }
  void text(std::string_view s) override {
    key();
    row_.push_back('"');
    append_json_escaped(row_, s);
    row_.push_back('"');
  }
  void null() override { key(), row_ += "null"; }

 private:
  void key() {
    row_ += col_ ? ",\"" : "{\"";
    row_ += table_.columns[col_++].name;
    row_ += "\":";
  }
  void close_row() override { row_ += "}\n"; }
};

class CsvWriter : public TextRowWriter {
 public:
  using TextRowWriter::TextRowWriter;
  Status begin(const Table& t) override {
    table_ = t;
    std::string header;
    for (size_t i = 0; i < t.columns.size(); ++i) header += (i ? "," : "") + t.columns[i].name;
    out_->append(header + "\n");
    return out_->status();
  }
  void u64(uint64_t v) override { sep(), number(v); }
  void i64(int64_t v) override { sep(), number(v); }
  // RFC 4180: quote fields holding a comma, quote or line break.
  void text(std::string_view s) override {
    sep();
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
      row_.append(s);
      return;
    }
    row_.push_back('"');
    for (char c : s) {
      if (c == '"') row_.push_back('"');
      row_.push_back(c);
    }
    row_.push_back('"');
  }
  void null() override { sep(); }  // an empty field

 private:
  void sep() {
    if (col_++) row_.push_back(',');
  }
  void close_row() override { row_.push_back('\n'); }
};

}  // namespace


bool parse_output_format(std::string_view s, OutputFormat& out) {
  if (s == "jsonl") return out = OutputFormat::Jsonl, true;
  if (s == "csv") return out = OutputFormat::Csv, true;
  if (s == "sqlite") return out = OutputFormat::Sqlite, true;
  return false;
}

Result<std::unique_ptr<RowWriter>> make_row_writer(OutputFormat f, const std::string& path) {
  if (f == OutputFormat::Sqlite) {
    if (path.empty() || path == "-") return make_error("-o", "SQLite output needs a file (-o FILE), not stdout");
    return make_sqlite_file_writer(path);
  }
  auto out = OutputStream::open(path);
  if (!out) return out.error();
  if (f == OutputFormat::Jsonl) return std::unique_ptr<RowWriter>(new JsonlWriter(std::move(*out)));
  return std::unique_ptr<RowWriter>(new CsvWriter(std::move(*out)));
}

}  // namespace ttd::exporting
