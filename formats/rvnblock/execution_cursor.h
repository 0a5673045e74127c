// Streams the rvnblock `execution` table in transition order, one block run
// at a time, and the `interrupts` table beside it. Each execution row holds
// the EXCLUSIVE end of a run (the first transition after the block); the
// run starts where the previous row ended, the first one at transition 0.
#pragma once
#include <cstdint>
#include <optional>

#include "formats/rvnblock/sqlite_db.h"
#include "state/error.h"

namespace ttd::fmt::rvnblock {

struct BlockRun {
  uint64_t begin = 0;  // first transition of the run
  uint64_t end = 0;    // first transition after it
  int64_t block_id = 0;
  uint64_t count() const { return end - begin; }
};

class ExecutionCursor {
 public:
  static Result<ExecutionCursor> open(SqliteDb& db);
  // The next non-empty run; false at the end of the table.
  Result<bool> next(BlockRun& run);

 private:
  ExecutionCursor(SqliteDb& db, SqliteStatement stmt) : db_(&db), stmt_(std::move(stmt)) {}
  SqliteDb* db_;
  SqliteStatement stmt_;
  uint64_t previous_end_ = 0;
  bool done_ = false;
};

struct InterruptRecord {
  uint64_t transition = 0;
  uint64_t pc = 0;  // pc right before the interrupt
  uint8_t mode = 0;
  uint64_t number = 0;  // x86: vector in the interrupt table
  bool is_hw = false;
  int64_t related_block_id = 0;  // block of the faulting instruction, 0 if none
};

// Looks interrupts up by transition id for monotonically increasing ids
// (a merge with the execution stream, never a table load).
class InterruptCursor {
 public:
  static Result<InterruptCursor> open(SqliteDb& db);
  Result<std::optional<InterruptRecord>> at(uint64_t transition);

 private:
  InterruptCursor(SqliteDb& db, std::optional<SqliteStatement> stmt)
      : db_(&db), stmt_(std::move(stmt)) {}
  Status advance();
  SqliteDb* db_;
  std::optional<SqliteStatement> stmt_;  // none when the file has no interrupts table
  std::optional<InterruptRecord> current_;
  bool started_ = false, done_ = false;
};

}  // namespace ttd::fmt::rvnblock
