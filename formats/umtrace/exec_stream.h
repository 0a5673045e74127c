// The full pass over the execution table: records in EID order, read
// through small pread windows of exec.vtable, exec.offsets and
// exec.prev_next.column with the formats' one file reader
// (formats/common/file_window.h). Not the mapping: a copy from the page
// cache into a small buffer that stays in the CPU cache costs less than
// faulting in and then missing on every page of a mapping (measured: see
// docs/formats/umtrace.md).
#pragma once
#include <cstdint>
#include <optional>

#include "formats/umtrace/exec_table.h"
#include "formats/common/file_window.h"

namespace ttd::fmt::umtrace {

class ExecStream {
 public:
  // Opens the files of a table ExecTable::open has checked.
  static Result<ExecStream> open(const ExecTable& table);
  // The next record; false after the last.
  Result<bool> next(ExecRecord& out);
  uint64_t vtable_size() const { return vtable_.file_size(); }

 private:
  ExecStream(FileWindow v, FileWindow o) : vtable_(std::move(v)), offsets_(std::move(o)) {}
  FileWindow vtable_, offsets_;
  std::optional<FileWindow> prev_next_;
  uint64_t count_ = 0, eid_ = 0;
};

}  // namespace ttd::fmt::umtrace
