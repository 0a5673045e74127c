// An opened, validated rvnblock trace: metadata checked, schema present,
// interrupt block in place, architecture known from the blocks' execution
// mode. Gives access to blocks and to a fresh execution stream; the step
// producer (rvnblock_reader) and the tests both build on it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "formats/rvnblock/block_store.h"
#include "formats/rvnblock/execution_cursor.h"
#include "formats/rvnblock/rvn_metadata.h"
#include "formats/rvnblock/sqlite_db.h"
#include "state/arch.h"

namespace ttd::fmt::rvnblock {

// rvnblock ExecutionMode (tetrane/rvnblock include/common.h).
enum class ExecutionMode : uint8_t { X86_64 = 0, X86_32 = 1, X86_16 = 2 };

class BlockTrace {
 public:
  static Result<std::unique_ptr<BlockTrace>> open(const std::string& path);

  const std::string& path() const { return db_->path(); }
  const RvnMetadata& metadata() const { return metadata_; }
  ArchId arch() const { return arch_; }
  // Transitions in the trace (the last execution row's end).
  uint64_t transition_count() const { return transition_count_; }
  uint64_t block_count() const { return block_count_; }

  Result<Block*> block(int64_t id, uint32_t needed = 0) { return blocks_->get(id, needed); }
  Result<ExecutionCursor> runs() { return ExecutionCursor::open(*db_); }
  Result<InterruptCursor> interrupts() { return InterruptCursor::open(*db_); }

 private:
  BlockTrace() = default;
  Status check_schema();
  Status check_interrupt_block();
  Status find_arch();
  Status count_rows();

  std::unique_ptr<SqliteDb> db_;
  RvnMetadata metadata_;
  ArchId arch_ = ArchId::X86_64;
  uint64_t transition_count_ = 0, block_count_ = 0;
  std::unique_ptr<BlockStore> blocks_;
};

}  // namespace ttd::fmt::rvnblock
