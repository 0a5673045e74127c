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

  // Reads record eid, checking that it lies inside exec.vtable.
  Status read(uint64_t eid, ExecRecord& out) const;
  // The reader is done with records before eid: their pages may go.
  void release_before(uint64_t eid) const;

 private:
  ExecTable() = default;
  std::unique_ptr<MappedFile> vtable_, offsets_, prev_next_;
  uint64_t count_ = 0;
  uint32_t version_ = 0;
  mutable uint64_t released_eid_ = 0;
};

}  // namespace ttd::fmt::umtrace
