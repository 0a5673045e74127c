// The rvnblock `blocks` and `instruction_indices` tables: each basic block's
// first pc, code bytes and instruction boundaries, fetched on first use and
// cached (the table is bounded by the code the trace ran, not its length).
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "formats/rvnblock/sqlite_db.h"
#include "state/arch.h"
#include "state/error.h"

namespace ttd::fmt::rvnblock {

// Block rowid 1 is the special block that execution rows point at for
// interrupts and faults ("interrupt", no instructions).
constexpr int64_t kInterruptBlockId = 1;

struct Block {
  int64_t id = 0;
  uint64_t pc = 0;                  // address of the first instruction
  std::vector<uint8_t> code;        // bytes of all the block's instructions
  uint32_t instruction_count = 0;   // as stored (the whole block)
  uint8_t mode = 0;                 // rvnblock ExecutionMode
  // Offsets of the instructions whose start the file tells (instruction 0
  // at 0, then instruction_indices in instruction_id order).
  std::vector<uint32_t> stored_offsets;
  // Offset and size of each instruction worked out so far (see
  // BlockStore::layout); grows on demand up to instruction_count.
  std::vector<uint32_t> offsets;
  std::vector<uint32_t> sizes;
  bool code_emitted = false;  // reader bookkeeping: code bytes already sent
  bool is_interrupt() const { return id == kInterruptBlockId; }
};

class BlockStore {
 public:
  // arch selects the Capstone decoder used for instruction lengths.
  static Result<std::unique_ptr<BlockStore>> create(SqliteDb& db, const ArchDesc& arch);
  ~BlockStore();

  // The block with this rowid, its layout known for at least `needed`
  // instructions (never more than it has).
  Result<Block*> get(int64_t id, uint32_t needed = 0);

 private:
  BlockStore(SqliteDb& db, SqliteStatement block_stmt, SqliteStatement index_stmt, size_t cs);
  Result<std::unique_ptr<Block>> fetch(int64_t id);
  Status layout(Block& b, uint32_t needed);
  // Length of the instruction at offset in b.code, 0 if it does not decode.
  uint32_t decode_length(const Block& b, uint32_t offset) const;

  SqliteDb& db_;
  SqliteStatement block_stmt_, index_stmt_;
  size_t cs_ = 0;  // csh
  std::unordered_map<int64_t, std::unique_ptr<Block>> cache_;
};

}  // namespace ttd::fmt::rvnblock
