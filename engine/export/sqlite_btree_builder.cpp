#include "engine/export/sqlite_btree_builder.h"

#include <algorithm>
#include <cstring>

#include "engine/export/sqlite_record.h"
#include "state/byte_order.h"

namespace ttd::exporting::sqlite_file {

namespace {

constexpr uint8_t kIndexInterior = 2, kTableInterior = 5, kIndexLeaf = 10, kTableLeaf = 13;

uint32_t get_be32(std::string_view s) { return load_be32(reinterpret_cast<const uint8_t*>(s.data())); }
// SQLite counts a cell as at least 4 bytes (btreeParseCellPtr).
size_t cell_slot(size_t n) { return std::max<size_t>(n, 4); }

}  // namespace

void PageCells::add(std::string_view c) {
  starts.push_back(uint32_t(bytes.size()));
  bytes.append(c);
  used += 2 + cell_slot(c.size());
}

void PageCells::pop_back() {
  const size_t n = bytes.size() - starts.back();
  used -= 2 + cell_slot(n);
  bytes.resize(starts.back());
  starts.pop_back();
}

void lay_out_page(uint8_t* page, uint32_t page_size, uint8_t type, const PageCells& cells, uint32_t right_child,
                  size_t header_at) {
  std::memset(page, 0, page_size);
  const bool interior = type == kIndexInterior || type == kTableInterior;
  uint8_t* h = page + header_at;
  h[0] = type;
  store_be16(h + 3, uint16_t(cells.count()));
  if (interior) store_be32(h + 8, right_child);
  uint8_t* ptrs = h + (interior ? 12 : 8);
  size_t end = page_size;
  for (size_t i = 0; i < cells.count(); ++i) {
    const std::string_view c = cells.cell(i);
    end -= cell_slot(c.size());
    std::memcpy(page + end, c.data(), c.size());
    store_be16(ptrs + 2 * i, uint16_t(end));
  }
  store_be16(h + 5, end == 65536 ? 0 : uint16_t(end));  // 0 stands for 65536
}

BtreeBuilder::BtreeBuilder(BtreeKind kind, PageSink& sink)
    : kind_(kind), sink_(sink), page_size_(sink.page_size()), page_(sink.page_size()) {}

bool BtreeBuilder::fits(const PageCells& p, size_t cell, bool interior) const {
  return (interior ? 12 : 8) + p.used + 2 + cell_slot(cell) <= page_size_;
}

uint32_t BtreeBuilder::write(const PageCells& p, bool interior, uint32_t right) {
  const uint8_t type = kind_ == BtreeKind::Table ? (interior ? kTableInterior : kTableLeaf)
                                                 : (interior ? kIndexInterior : kIndexLeaf);
  lay_out_page(page_.data(), page_size_, type, p, right, 0);
  return sink_.write_page(page_.data());
}

// The payload part of a cell: the record if it fits, else its first bytes,
// the rest on overflow pages and their first page's number (fileformat2,
// "Cell Payload Overflow Pages": the same local size SQLite computes).
void BtreeBuilder::payload_cell(std::string& cell, std::string_view record, bool table_leaf) {
  const size_t u = page_size_, p = record.size();
  const size_t x = table_leaf ? u - 35 : (u - 12) * 64 / 255 - 23;
  if (p <= x) {
    cell.append(record);
    return;
  }
  const size_t m = (u - 12) * 32 / 255 - 23, k = m + (p - m) % (u - 4);
  const size_t local = k <= x ? k : m;
  cell.append(record.substr(0, local));
  append_be32(cell, sink_.next_page_number());
  std::string_view rest = record.substr(local);
  while (!rest.empty()) {
    const size_t n = std::min(rest.size(), u - 4);
    std::memset(page_.data(), 0, u);
    // Pages are numbered in write order, so the next one is this one + 1.
    store_be32(page_.data(), n < rest.size() ? sink_.next_page_number() + 1 : 0);
    std::memcpy(page_.data() + 4, rest.data(), n);
    sink_.write_page(page_.data());
    rest.remove_prefix(n);
  }
}

void BtreeBuilder::add_row(int64_t rowid, std::string_view record) {
  cell_.clear();
  append_varint(cell_, record.size());
  append_varint(cell_, uint64_t(rowid));
  payload_cell(cell_, record, true);
  if (!fits(leaf_, cell_.size(), false)) {
    const uint32_t page = write(leaf_, false, 0);
    key_.clear();
    append_varint(key_, uint64_t(last_rowid_));
    push_up(0, page, key_);
    leaf_.clear();
  }
  leaf_.add(cell_);
  last_rowid_ = rowid;
}

void BtreeBuilder::add_entry(std::string_view record) {
  cell_.clear();
  append_varint(cell_, record.size());
  payload_cell(cell_, record, false);
  if (has_pending_) {  // an entry follows the pending divider: it can go up
    push_up(0, write(leaf_full_, false, 0), pending_);
    has_pending_ = false;
  }
  if (fits(leaf_, cell_.size(), false)) {
    leaf_.add(cell_);
    return;
  }
  // An index's interior cells hold entries: this one divides the full leaf
  // from the next, if a next comes (else finish() rebalances).
  std::swap(leaf_full_, leaf_);
  leaf_.clear();
  pending_ = cell_;
  has_pending_ = true;
}

// child, then key, then (the caller guarantees) more entries or rows.
void BtreeBuilder::push_up(size_t level, uint32_t child, std::string_view key) {
  if (level == levels_.size()) levels_.emplace_back();
  Level& l = levels_[level];
  if (l.has_full) {
    const uint32_t page = write(l.full, true, l.full_right);
    l.has_full = false;
    const std::string divider = l.pending_key;  // levels_ may grow: no reference into it
    push_up(level + 1, page, divider);
  }
  Level& m = levels_[level];
  icell_.clear();
  append_be32(icell_, child);
  icell_.append(key);
  if (fits(m.cur, icell_.size(), true)) {
    m.cur.add(icell_);
    return;
  }
  std::swap(m.full, m.cur);
  m.cur.clear();
  m.full_right = child;
  m.pending_key.assign(key);
  m.has_full = true;
}

// Closes the level with its last child; returns the root's page number.
uint32_t BtreeBuilder::finish_level(size_t level, uint32_t right) {
  if (levels_[level].has_full) {
    // Nothing followed the pending divider: move the full page's last cell
    // up instead, so the last page holds (full_right, divider) and right.
    Level& l = levels_[level];
    const std::string last(l.full.cell(l.full.count() - 1));
    l.full.pop_back();
    const uint32_t page = write(l.full, true, get_be32(last));
    l.has_full = false;
    std::string tail;
    append_be32(tail, l.full_right);
    tail.append(l.pending_key);
    l.cur.add(tail);
    push_up(level + 1, page, std::string_view(last).substr(4));
  }
  const uint32_t page = write(levels_[level].cur, true, right);
  if (level + 1 < levels_.size()) return finish_level(level + 1, page);
  return page;
}

uint32_t BtreeBuilder::finish() {
  if (has_pending_) {
    // The last entry filled no leaf: it becomes the last leaf, and the full
    // leaf's last entry the divider before it.
    const std::string last(leaf_full_.cell(leaf_full_.count() - 1));
    leaf_full_.pop_back();
    push_up(0, write(leaf_full_, false, 0), last);
    leaf_.add(pending_);
    has_pending_ = false;
  }
  const uint32_t page = write(leaf_, false, 0);
  if (levels_.empty()) return page;
  return finish_level(0, page);
}

}  // namespace ttd::exporting::sqlite_file
