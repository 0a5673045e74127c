#include "formats/rvnblock/block_trace.h"

#include <string_view>

namespace ttd::fmt::rvnblock {

Result<std::unique_ptr<BlockTrace>> BlockTrace::open(const std::string& path) {
  std::unique_ptr<BlockTrace> t(new BlockTrace());
  auto db = SqliteDb::open_readonly(path);
  if (!db) return db.error();
  t->db_ = std::move(db.value());
  auto md = read_rvn_metadata(*t->db_);
  if (!md) return md.error();
  t->metadata_ = std::move(md.value());
  if (Status s = check_block_trace_metadata(t->metadata_, path); !s) return s.error();
  if (Status s = t->check_schema(); !s) return s.error();
  if (Status s = t->check_interrupt_block(); !s) return s.error();
  if (Status s = t->find_arch(); !s) return s.error();
  if (Status s = t->count_rows(); !s) return s.error();
  auto store = BlockStore::create(*t->db_, arch_desc(t->arch_));
  if (!store) return store.error();
  t->blocks_ = std::move(store.value());
  return t;
}

Status BlockTrace::check_schema() {
  for (std::string_view table : {"blocks", "execution", "instruction_indices"})
    if (!db_->has_table(table))
      return make_error(path(), "block trace metadata but table " + std::string(table) + " is missing");
  return {};
}

Status BlockTrace::check_interrupt_block() {
  auto st = db_->prepare("SELECT instruction_data, instruction_count FROM blocks WHERE rowid = 1");
  if (!st) return st.error();
  StepResult r = st->step();
  if (r == StepResult::Failed) return db_->error("cannot read table blocks");
  auto data = r == StepResult::Row ? st->column_blob(0) : std::span<const uint8_t>();
  std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
  if (r != StepResult::Row || text != "interrupt" || st->column_int64(1) != 0)
    return make_error(path(), "block 1 is not the interrupt block (instruction_data \"interrupt\", "
                              "no instructions) every rvnblock trace starts with");
  return {};
}

Status BlockTrace::find_arch() {
  auto st = db_->prepare("SELECT DISTINCT mode FROM blocks WHERE rowid <> 1 ORDER BY mode");
  if (!st) return st.error();
  int modes = 0;
  int64_t mode = 0;
  StepResult r;
  while ((r = st->step()) == StepResult::Row) {
    mode = st->column_int64(0);
    ++modes;
  }
  if (r == StepResult::Failed) return db_->error("cannot read block modes");
  // One trace has one architecture for the debugger; a trace that switches
  // between 64- and 32-bit code would need per-step arches we do not model.
  if (modes > 1) return make_error(path(), "blocks mix several execution modes (64/32/16-bit); not supported");
  if (modes == 0 || mode == int64_t(ExecutionMode::X86_64)) {
    arch_ = ArchId::X86_64;
  } else if (mode == int64_t(ExecutionMode::X86_32)) {
    arch_ = ArchId::I386;
  } else if (mode == int64_t(ExecutionMode::X86_16)) {
    return make_error(path(), "16-bit x86 execution mode is not supported");
  } else {
    return make_error(path(), "unknown execution mode " + std::to_string(mode) + " in table blocks");
  }
  return {};
}

Status BlockTrace::count_rows() {
  auto st = db_->prepare("SELECT (SELECT MAX(transition_id) FROM execution), (SELECT COUNT(*) FROM blocks)");
  if (!st) return st.error();
  if (st->step() != StepResult::Row) return db_->error("cannot count transitions");
  transition_count_ = st->column_is_null(0) ? 0 : uint64_t(st->column_int64(0));
  block_count_ = uint64_t(st->column_int64(1));
  return {};
}

}  // namespace ttd::fmt::rvnblock
