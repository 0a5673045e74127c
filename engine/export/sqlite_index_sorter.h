// Sorts one index's entries (a column value and its row's rowid) into
// SQLite's order for the index: NULL < integers (signed) < text (bytes,
// memcmp: the BINARY collation), then rowid. Memory is bounded: past
// run_bytes the sorted entries go to a spill file as a run, and drain()
// merges the runs. Input already in order (an EID column of rows that come
// in EID order) is recognised and not sorted again.
//
// The spill file is created beside the export (so it lands on the same
// disk and a full disk names it) and unlinked at once: nothing remains
// after a crash.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "state/error.h"

namespace ttd::exporting::sqlite_file {

struct IndexKey {
  enum Kind : uint8_t { Null = 0, Int = 1, Text = 2 } kind = Null;
  int64_t i = 0;
  std::string_view text;
  int64_t rowid = 0;
};

class IndexSorter {
 public:
  // spill_path: where a spill file may be created (only if one is needed).
  IndexSorter(std::string spill_path, size_t run_bytes);
  ~IndexSorter();
  IndexSorter(const IndexSorter&) = delete;
  IndexSorter& operator=(const IndexSorter&) = delete;

  Status add(const IndexKey& k);
  // Calls emit for every entry in order; the key's text lives until the next call.
  Status drain(const std::function<void(const IndexKey&)>& emit);

 private:
  // 24 bytes. Text: off and len in the arena, i its first 8 bytes big-endian
  // (most comparisons of register or function names end there).
  struct Entry {
    int64_t i, rowid;
    uint32_t off, len_kind;  // len << 2 | kind
    IndexKey::Kind kind() const { return IndexKey::Kind(len_kind & 3); }
    uint32_t len() const { return len_kind >> 2; }
  };
  struct Run {
    uint64_t offset, bytes;
  };
  IndexKey key_of(const Entry& e) const {
    if (e.kind() == IndexKey::Text) return {IndexKey::Text, 0, {text_at(e.off), e.len()}, e.rowid};
    return {e.kind(), e.i, {}, e.rowid};
  }
  bool less(const Entry& a, const Entry& b) const;
  void sort_entries();
  Status spill();
  Status write_spill(const std::string& bytes);

  const char* text_at(uint32_t off) const { return region_ + run_bytes_ - off; }

  std::string spill_path_;
  size_t run_bytes_;
  // One mapping of run_bytes_ (huge pages where the kernel gives them: in
  // a VM, first-touch faults of 4 KiB pages cost as much as the sort):
  // entries grow from the front, their text from the back.
  char* region_ = nullptr;  // map_ rounded up to 2 MiB
  Entry* entries_ = nullptr;
  size_t count_ = 0, text_bytes_ = 0;
  bool sorted_ = true;
  int fd_ = -1;
  uint64_t spilled_ = 0;
  std::vector<Run> runs_;
  void* map_ = nullptr;
};

// SQLite's order of two index keys (negative, 0, positive).
int compare_index_keys(const IndexKey& a, const IndexKey& b);

}  // namespace ttd::exporting::sqlite_file
