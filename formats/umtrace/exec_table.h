// The execution table: exec.vtable (packed variable-size records),
// exec.offsets (where each record starts, plus the end of the last) and
// exec.prev_next.column (each record's previous and next record of the same
// thread). Records are read in place from the mappings, one at a time, so a
// pass over a table of any size keeps only a window of it resident.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "formats/umtrace/mapped_file.h"

namespace ttd::fmt::umtrace {

struct ExecRecord {
  uint64_t eid = 0;
  uint64_t offset = 0;  // of the record in exec.vtable
  uint32_t thread = 0;  // row of the thread table
  uint8_t type = 0;
  uint8_t flags = 0;
  const uint8_t* data = nullptr;  // type-dependent data after the 6-byte header
  uint64_t data_size = 0;
  int64_t prev = -1, next = -1;  // thread control flow; meaningful if has_prev_next
  bool has_prev_next = false;
  uint64_t data_offset() const { return offset + 6; }
};

class ExecTable {
 public:
  // exec.vtable and exec.offsets are required; exec.prev_next.column is
  // checked when present.
  static Result<std::unique_ptr<ExecTable>> open(const std::string& dir);

  uint64_t count() const { return count_; }
  uint32_t version() const { return version_; }
  const MappedFile& vtable() const { return *vtable_; }
  bool has_prev_next() const { return prev_next_ != nullptr; }

  const std::string& dir() const { return dir_; }
  // Reads record eid (random access, for probes; the full pass uses
  // ExecStream), checking that it lies inside exec.vtable.
  Status read(uint64_t eid, ExecRecord& out) const;

 private:
  ExecTable() = default;
  std::unique_ptr<MappedFile> vtable_, offsets_, prev_next_;
  uint64_t count_ = 0;
  uint32_t version_ = 0;
  std::string dir_;
};

// Shared by ExecTable and ExecStream: checks that record eid, at
// [begin, end) of exec.vtable, is inside the file and holds its header.
Status record_extent_error(uint64_t eid, uint64_t begin, uint64_t end, uint64_t vtable_size,
                           const std::string& vtable_path, const std::string& offsets_path);
inline Status check_record_extent(uint64_t eid, uint64_t begin, uint64_t end, uint64_t vtable_size,
                                  const std::string& vtable_path, const std::string& offsets_path) {
  // Header size 16, record header 6; written without begin + 6, which wraps.
  if (begin >= 16 && end <= vtable_size && end >= begin && end - begin >= 6) return {};
  return record_extent_error(eid, begin, end, vtable_size, vtable_path, offsets_path);
}
// Fills out from the record's bytes (header included).
void fill_record(uint64_t eid, uint64_t begin, const uint8_t* bytes, uint64_t size, ExecRecord& out);

}  // namespace ttd::fmt::umtrace
