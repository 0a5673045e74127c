#include "formats/rvnblock/execution_cursor.h"

#include <string>

namespace ttd::fmt::rvnblock {

Result<ExecutionCursor> ExecutionCursor::open(SqliteDb& db) {
  if (!db.has_table("execution"))
    return make_error(db.path(), "not an rvnblock trace: table execution is missing");
  // The table is WITHOUT ROWID keyed on transition_id, so this ORDER BY is
  // a plain in-order walk of the primary key, not a sort.
  auto st = db.prepare("SELECT transition_id, block_id FROM execution ORDER BY transition_id");
  if (!st) return st.error();
  return ExecutionCursor(db, std::move(st.value()));
}

Result<bool> ExecutionCursor::next(BlockRun& run) {
  while (!done_) {
    StepResult r = stmt_.step();
    if (r == StepResult::Failed) return db_->error("cannot read table execution");
    if (r == StepResult::Done) {
      done_ = true;
      break;
    }
    int64_t end = stmt_.column_int64(0);
    if (end < int64_t(previous_end_))
      return make_error(db_->path(), "execution row with negative transition id " + std::to_string(end));
    run.begin = previous_end_;
    run.end = uint64_t(end);
    run.block_id = stmt_.column_int64(1);
    previous_end_ = run.end;
    if (run.count() > 0) return true;
    // transition_id 0 would describe an empty run before the trace starts;
    // nothing executed, so there is no step to produce.
  }
  return false;
}

Result<InterruptCursor> InterruptCursor::open(SqliteDb& db) {
  if (!db.has_table("interrupts")) return InterruptCursor(db, std::nullopt);
  auto st = db.prepare(
      "SELECT transition_id, pc, mode, number, is_hw, related_instruction_block_id "
      "FROM interrupts ORDER BY transition_id");
  if (!st) return st.error();
  return InterruptCursor(db, std::move(st.value()));
}

Status InterruptCursor::advance() {
  StepResult r = stmt_->step();
  if (r == StepResult::Failed) return db_->error("cannot read table interrupts");
  if (r == StepResult::Done) {
    done_ = true;
    current_.reset();
    return {};
  }
  InterruptRecord rec;
  rec.transition = uint64_t(stmt_->column_int64(0));
  rec.pc = uint64_t(stmt_->column_int64(1));
  rec.mode = uint8_t(stmt_->column_int64(2));
  rec.number = uint64_t(stmt_->column_int64(3));
  rec.is_hw = stmt_->column_int64(4) != 0;
  rec.related_block_id = stmt_->column_int64(5);
  current_ = rec;
  return {};
}

Result<std::optional<InterruptRecord>> InterruptCursor::at(uint64_t transition) {
  if (!stmt_) return std::optional<InterruptRecord>();
  if (!started_) {
    started_ = true;
    Status s = advance();
    if (!s) return s.error();
  }
  while (!done_ && current_ && current_->transition < transition) {
    Status s = advance();
    if (!s) return s.error();
  }
  if (current_ && current_->transition == transition) return current_;
  return std::optional<InterruptRecord>();
}

}  // namespace ttd::fmt::rvnblock
