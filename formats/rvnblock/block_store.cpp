#include "formats/rvnblock/block_store.h"

#include <capstone/capstone.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace ttd::fmt::rvnblock {

namespace {
constexpr uint32_t kMaxX86InstructionLength = 15;

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
}  // namespace

Result<std::unique_ptr<BlockStore>> BlockStore::create(SqliteDb& db, const ArchDesc& arch) {
  auto block_stmt =
      db.prepare("SELECT pc, instruction_data, instruction_count, mode FROM blocks WHERE rowid = ?");
  if (!block_stmt) return block_stmt.error();
  auto index_stmt = db.prepare(
      "SELECT instruction_index FROM instruction_indices WHERE block_id = ? ORDER BY instruction_id");
  if (!index_stmt) return index_stmt.error();
  csh handle = 0;
  if (cs_open(cs_arch(arch.cs_arch), cs_mode(arch.cs_mode), &handle) != CS_ERR_OK)
    return make_error(db.path(), "cannot start the Capstone disassembler for " + arch.name);
  return std::unique_ptr<BlockStore>(
      new BlockStore(db, std::move(block_stmt.value()), std::move(index_stmt.value()), handle));
}

BlockStore::BlockStore(SqliteDb& db, SqliteStatement block_stmt, SqliteStatement index_stmt,
                       size_t cs)
    : db_(db), block_stmt_(std::move(block_stmt)), index_stmt_(std::move(index_stmt)), cs_(cs) {}

BlockStore::~BlockStore() {
  csh handle = cs_;
  if (handle) cs_close(&handle);
}

Result<Block*> BlockStore::get(int64_t id, uint32_t needed) {
  auto it = cache_.find(id);
  if (it == cache_.end()) {
    auto fetched = fetch(id);
    if (!fetched) return fetched.error();
    it = cache_.emplace(id, std::move(fetched.value())).first;
  }
  Block& b = *it->second;
  if (!b.is_interrupt() && b.offsets.size() < needed) {
    Status s = layout(b, needed);
    if (!s) return s.error();
  }
  return &b;
}

Result<std::unique_ptr<Block>> BlockStore::fetch(int64_t id) {
  const std::string which = "block " + std::to_string(id);
  block_stmt_.reset();
  block_stmt_.bind_int64(1, id);
  StepResult r = block_stmt_.step();
  if (r == StepResult::Failed) return db_.error("cannot read " + which);
  if (r == StepResult::Done)
    return make_error(db_.path(), "execution refers to " + which + ", which is not in table blocks");
  auto b = std::make_unique<Block>();
  b->id = id;
  b->pc = uint64_t(block_stmt_.column_int64(0));
  auto code = block_stmt_.column_blob(1);
  b->code.assign(code.begin(), code.end());
  int64_t count = block_stmt_.column_int64(2);
  int64_t mode = block_stmt_.column_int64(3);
  if (count < 0 || count > 0xffff)
    return make_error(db_.path(), which + " has an impossible instruction count " + std::to_string(count));
  b->instruction_count = uint32_t(count);
  b->mode = uint8_t(mode);
  if (b->is_interrupt()) return b;
  if (b->instruction_count == 0)
    return make_error(db_.path(), which + " has no instructions but is not the interrupt block");
  if (b->code.empty()) return make_error(db_.path(), which + " has no code bytes");
  if (b->pc + (b->code.size() - 1) < b->pc)
    return make_error(db_.path(), which + " at pc " + hex(b->pc) + " has " + std::to_string(b->code.size()) +
                                      " code bytes, past the end of the address space");

  // instruction_indices stores the start of every instruction but the first
  // (which starts at 0), for the instructions the trace executed.
  b->stored_offsets.push_back(0);
  index_stmt_.reset();
  index_stmt_.bind_int64(1, id);
  while ((r = index_stmt_.step()) == StepResult::Row) {
    int64_t off = index_stmt_.column_int64(0);
    if (off <= int64_t(b->stored_offsets.back()) || off >= int64_t(b->code.size()))
      return make_error(db_.path(), which + ": instruction offset " + std::to_string(off) +
                                        " is out of order or past its " +
                                        std::to_string(b->code.size()) + " code bytes");
    b->stored_offsets.push_back(uint32_t(off));
  }
  if (r == StepResult::Failed) return db_.error("cannot read instruction indices of " + which);
  if (b->stored_offsets.size() > b->instruction_count)
    return make_error(db_.path(), which + " lists more instruction offsets than its " +
                                      std::to_string(b->instruction_count) + " instructions");
  return b;
}

uint32_t BlockStore::decode_length(const Block& b, uint32_t offset) const {
  if (offset >= b.code.size()) return 0;
  const uint8_t* code = b.code.data() + offset;
  size_t left = b.code.size() - offset;
  uint64_t addr = b.pc + offset;
  cs_insn* insn = nullptr;
  size_t n = cs_disasm(csh(cs_), code, left, addr, 1, &insn);
  uint32_t len = n ? uint32_t(insn[0].size) : 0;
  if (n) cs_free(insn, n);
  return len;
}

Status BlockStore::layout(Block& b, uint32_t needed) {
  needed = std::min(needed, b.instruction_count);
  const std::string which = "block " + std::to_string(b.id);
  // Instructions with a stored successor get their size from the offsets;
  // the last stored one may run into bytes of instructions that never ran,
  // so its length comes from the disassembler (the spec asks clients to do
  // exactly this). Past the stored offsets (a run longer than anything the
  // writer recorded) we keep decoding linearly.
  while (b.offsets.size() < needed) {
    size_t i = b.offsets.size();
    uint32_t off = i < b.stored_offsets.size() ? b.stored_offsets[i] : b.offsets.back() + b.sizes.back();
    if (off >= b.code.size())
      return make_error(db_.path(), which + " at pc " + hex(b.pc) + ": instruction " +
                                        std::to_string(i) + " starts past its " +
                                        std::to_string(b.code.size()) + " code bytes");
    uint32_t size = 0;
    if (i + 1 < b.stored_offsets.size()) {
      size = b.stored_offsets[i + 1] - off;
    } else {
      size = decode_length(b, off);
      uint32_t left = uint32_t(b.code.size()) - off;
      // Undecodable bytes: the block still ran them; keep what is there.
      if (size == 0) size = std::min(left, kMaxX86InstructionLength);
      size = std::min(size, left);
    }
    b.offsets.push_back(off);
    b.sizes.push_back(size);
  }
  return {};
}

}  // namespace ttd::fmt::rvnblock
