// Builds one SQLite b-tree (a table's rows or an index's entries) from
// input already in key order, bottom-up, writing each page once when its
// content is final (https://www.sqlite.org/fileformat2.html, "B-tree
// Pages"). Pages are filled completely; payloads too large for a page go
// to overflow chains. Memory: one page per tree level plus one held back
// per level (so that no interior page ends without a cell).
//
// Contract: a table's rows come in strictly increasing rowid order, an
// index's records in SQLite's order for the index (the caller sorts).
// finish() returns the root's page number; the builder is then spent.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ttd::exporting::sqlite_file {

// Where pages go: numbered 1, 2, ... in the order written.
class PageSink {
 public:
  virtual ~PageSink() = default;
  virtual uint32_t page_size() const = 0;
  virtual uint32_t next_page_number() const = 0;
  virtual uint32_t write_page(const uint8_t* page) = 0;  // returns its number
};

enum class BtreeKind : uint8_t { Table, Index };

// A page's cells as they will be laid out, and the bytes they take.
struct PageCells {
  std::string bytes;
  std::vector<uint32_t> starts;  // each cell's start in bytes
  size_t used = 0;               // 2-byte pointer + max(4, cell) per cell
  size_t count() const { return starts.size(); }
  std::string_view cell(size_t i) const {
    const size_t end = i + 1 < starts.size() ? starts[i + 1] : bytes.size();
    return std::string_view(bytes).substr(starts[i], end - starts[i]);
  }
  void add(std::string_view c);
  void pop_back();
  void clear() { bytes.clear(), starts.clear(), used = 0; }
};

// Lays out a b-tree page (type 2, 5, 10 or 13) into page (page_size bytes).
// header_at: 100 on page 1 (behind the database header), else 0.
void lay_out_page(uint8_t* page, uint32_t page_size, uint8_t type, const PageCells& cells, uint32_t right_child,
                  size_t header_at);

class BtreeBuilder {
 public:
  BtreeBuilder(BtreeKind kind, PageSink& sink);
  void add_row(int64_t rowid, std::string_view record);  // Table
  void add_entry(std::string_view record);               // Index
  uint32_t finish();

 private:
  // An interior level: the page being filled and, once it is full, that
  // page held with its right child and the divider that follows it until
  // it is known that more comes after the divider.
  struct Level {
    PageCells cur, full;
    bool has_full = false;
    uint32_t full_right = 0;
    std::string pending_key;
  };
  bool fits(const PageCells& p, size_t cell, bool interior) const;
  uint32_t write(const PageCells& p, bool interior, uint32_t right);
  void payload_cell(std::string& cell, std::string_view record, bool table_leaf);
  void push_up(size_t level, uint32_t child, std::string_view key);
  uint32_t finish_level(size_t level, uint32_t right);

  BtreeKind kind_;
  PageSink& sink_;
  uint32_t page_size_;
  std::vector<uint8_t> page_;
  PageCells leaf_, leaf_full_;  // leaf_full_: an index leaf held with its pending divider
  bool has_pending_ = false;
  std::string pending_, cell_, key_, icell_;  // icell_: interior cells (push_up)
  int64_t last_rowid_ = 0;
  std::vector<Level> levels_;  // levels_[0]: the interior level above the leaves
};

}  // namespace ttd::exporting::sqlite_file
