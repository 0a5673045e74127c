// The full pass over the execution table: records in EID order, read
// through small pread windows of exec.vtable, exec.offsets and
// exec.prev_next.column (see SequentialFile for why not the mapping).
#pragma once
#include <cstdint>
#include <optional>

#include "formats/umtrace/exec_table.h"
#include "formats/umtrace/sequential_file.h"

namespace ttd::fmt::umtrace {

class ExecStream {
 public:
  // Opens the files of a table ExecTable::open has checked.
  static Result<ExecStream> open(const ExecTable& table);
  // The next record; false after the last.
  Result<bool> next(ExecRecord& out);
  uint64_t vtable_size() const { return vtable_.size(); }

 private:
  ExecStream(SequentialFile v, SequentialFile o) : vtable_(std::move(v)), offsets_(std::move(o)) {}
  SequentialFile vtable_, offsets_;
  std::optional<SequentialFile> prev_next_;
  uint64_t count_ = 0, eid_ = 0;
};

}  // namespace ttd::fmt::umtrace
