#include "formats/umtrace/instruction_table.h"

#include <algorithm>
#include <cstring>

#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

namespace {

std::string ins_name(uint64_t id) { return "instruction " + std::to_string(id); }

// A slot index in an operand or memory phrase: an LC slot or a special value.
bool valid_slot_ref(uint8_t slot, uint8_t lc_count) {
  return slot < lc_count || slot == kSlotImm0 || slot == kSlotImm1 || slot == kSlotNA;
}

}  // namespace

Result<std::unique_ptr<InstructionTable>> InstructionTable::open(const std::string& path) {
  auto f = MappedFile::open(path);
  if (!f) return f.error();
  std::unique_ptr<InstructionTable> t(new InstructionTable());
  t->file_ = std::move(*f);
  // insRec version 1 only renamed lcSlot.LargestEnclosing to CommonRegName;
  // we resolve registers through the context map, so both read alike.
  auto h = read_itable_header(*t->file_, {InsRecLayout::kSize, 1, true});
  if (!h) return h.error();
  t->header_ = *h;
  t->plan_index_.assign(t->header_.row_count, 0);
  return t;
}

Result<InstructionPlan*> InstructionTable::plan(uint64_t id, const RegisterResolver& regs, uint16_t elem_count) {
  if (id >= header_.row_count)
    return make_error(file_->path(), ins_name(id) + " does not exist (the table has " +
                                         std::to_string(header_.row_count) + ")");
  if (uint32_t i = plan_index_[id]) return &plans_[i - 1];
  auto p = decode(id, regs, elem_count);
  if (!p) return p.error();
  plans_.push_back(std::move(*p));
  plan_index_[id] = uint32_t(plans_.size());
  return &plans_.back();
}

Result<InstructionPlan> InstructionTable::decode(uint64_t id, const RegisterResolver& regs,
                                                 uint16_t elem_count) const {
  using R = InsRecLayout;
  using D = DecodedLayout;
  using S = LcSlotLayout;
  const MappedFile& f = *file_;
  const uint64_t row = header_.row_offset(id);
  const uint8_t* r = f.data() + row;
  InstructionPlan p;
  p.id = id;
  const int64_t self = load_le_i64(r + R::kID);
  if (self != int64_t(id))
    return f.error_at(row + R::kID, ins_name(id) + " says it is record " + std::to_string(self));
  p.type = r[R::kType];
  p.cs64 = r[R::kCs64] != 0;
  p.code_size = r[R::kCodeSize];
  if (p.code_size > R::kMaxCode)
    return f.error_at(row + R::kCodeSize, ins_name(id) + ": code size " + std::to_string(p.code_size) +
                                              " exceeds the 15 bytes an x86 instruction can have");
  p.module_id = load_le_i32(r + R::kModuleID);
  p.address = load_le64(r + R::kAddress);
  std::memcpy(p.code, r + R::kCodeBytes, p.code_size);

  // decodedIns lives in the extra area; its file pointer is relative to ExtraFP.
  const int64_t fp = load_le_i64(r + R::kDecodedFP);
  const uint64_t extra_end = header_.extra_fp + header_.extra_size;
  if (fp < 0 || uint64_t(fp) > header_.extra_size || header_.extra_size - uint64_t(fp) < D::kFixedSize)
    return f.error_at(row + R::kDecodedFP, ins_name(id) + ": decoded instruction at extra offset " +
                                               std::to_string(fp) + " does not fit in the " +
                                               std::to_string(header_.extra_size) + "-byte extra area");
  const uint64_t at = header_.extra_fp + uint64_t(fp);
  const uint8_t* d = f.data() + at;
  const uint8_t exp_count = d[D::kExpCount];
  const uint8_t first_out = d[D::kFirstOutSlot], first_after = d[D::kFirstAfterSlot], lc_count = d[D::kLCCount];
  p.lc_size = load_le16(d + D::kLCSize);
  if (exp_count > D::kMaxExpOper)
    return f.error_at(at + D::kExpCount, ins_name(id) + ": " + std::to_string(exp_count) +
                                             " explicit operands (at most 4)");
  if (first_out > first_after || first_after > lc_count)
    return f.error_at(at + D::kFirstOutSlot, ins_name(id) + ": slot groups out of order (first output " +
                                                 std::to_string(first_out) + ", first after " +
                                                 std::to_string(first_after) + ", count " +
                                                 std::to_string(lc_count) + ")");
  if (uint64_t(lc_count) * S::kSize > extra_end - at - D::kFixedSize)
    return f.error_at(at + D::kLCCount, ins_name(id) + ": " + std::to_string(lc_count) +
                                            " local context slots run past the extra area");
  for (uint8_t i = 0; i < exp_count; ++i) {
    const uint8_t* o = d + D::kExpOper + i * ExpOperLayout::kSize;
    if (!valid_slot_ref(o[ExpOperLayout::kBeforeSlot], lc_count) ||
        !valid_slot_ref(o[ExpOperLayout::kAfterSlot], lc_count))
      return f.error_at(at + D::kExpOper + i * ExpOperLayout::kSize,
                        ins_name(id) + ": explicit operand " + std::to_string(i) + " refers to a missing slot");
  }
  for (uint32_t field : {D::kMem0SegSlot, D::kMem0BaseSlot, D::kMem0IndexSlot, D::kMem1BaseSlot})
    if (!valid_slot_ref(d[field], lc_count))
      return f.error_at(at + field, ins_name(id) + ": memory phrase refers to slot " + std::to_string(d[field]) +
                                        " of " + std::to_string(lc_count));

  for (uint8_t i = 0; i < lc_count; ++i) {
    const uint64_t sat = at + D::kLCSlots + uint64_t(i) * S::kSize;
    const uint8_t* s = f.data() + sat;
    const uint16_t name = load_le16(s + S::kRegName);
    const uint16_t value_size = load_le16(s + S::kValueSize);
    const uint16_t offset = load_le16(s + S::kOffset);
    const uint8_t addr_width = s[S::kAddrWidth];
    if (name == kRegInvalid || name == kRegAgen) continue;  // constants / lea's address: no machine state
    if (name < kRegAgen && name >= elem_count)
      return f.error_at(sat, ins_name(id) + ": slot " + std::to_string(i) + " names register " +
                                 std::to_string(name) + ", which the context map (" + std::to_string(elem_count) +
                                 " registers) does not have");
    const RegTarget& t = regs.target(name, p.cs64);
    const bool memory = name == kRegMem0 || name == kRegMem1 || addr_width != 0 || t.role == RegRole::StackMemory;
    const uint32_t end = uint32_t(offset) + (memory ? S::kAddressBytes : 0) + value_size;
    if (end > p.lc_size)
      return f.error_at(sat, ins_name(id) + ": slot " + std::to_string(i) + " (" + std::to_string(value_size) +
                                 " bytes at " + std::to_string(offset) + ") runs past the " +
                                 std::to_string(p.lc_size) + "-byte local context");
    if (value_size == 0) continue;
    const bool before_input = i < first_out, before_output = i >= first_out && i < first_after;
    if (memory) {
      if (addr_width > 8)
        return f.error_at(sat + S::kAddrWidth, ins_name(id) + ": slot " + std::to_string(i) + " address width " +
                                                   std::to_string(addr_width) + " exceeds 8 bytes");
      MemSlot m;
      m.lc_offset = offset;
      m.size = value_size;
      const uint32_t w = addr_width ? addr_width : 8;
      m.addr_mask = w >= 8 ? ~0ull : ((1ull << (8 * w)) - 1);
      // The pre-value of memory that is only written is not a read: it
      // tells nothing an access would, and the write overrides it.
      if (before_input) p.reads.push_back(m);
      else if (!before_output) p.writes.push_back(m);
      continue;
    }
    const bool before = before_input || before_output;
    if (t.role == RegRole::ProgramCounter && !before && t.offset == 0 && value_size >= 2) {
      p.pc_after = offset;  // where the thread continues
      p.pc_size = uint8_t(std::min<uint32_t>(value_size, 8));
      continue;
    }
    if (t.role != RegRole::Register) continue;  // the pc comes with the step; other names carry no state we keep
    RegSlot rs;
    rs.lc_offset = offset;
    rs.target = t;
    const uint32_t room = regs.arch().regs[t.reg].bytes() - t.offset;
    rs.size = uint16_t(std::min<uint32_t>(value_size, room));
    // Only a write clears upper bytes; a before-value of eax says nothing
    // about the upper half of rax.
    rs.zero_extend = !before && regs.zero_extends(t, value_size, p.cs64);
    (before ? p.before : p.after).push_back(rs);
  }
  return p;
}

void InstructionTable::forget_code_in(uint64_t lo, uint64_t hi) {
  for (InstructionPlan& p : plans_)
    if (p.address <= hi && p.address + p.code_size > lo) p.code_emitted = false;
}

Result<std::string> InstructionTable::disassembly(uint64_t id) const {
  if (id >= header_.row_count) return make_error(file_->path(), ins_name(id) + " does not exist");
  const uint64_t row = header_.row_offset(id);
  const int64_t fp = load_le_i64(file_->data() + row + InsRecLayout::kDisasmFP);
  if (fp < 0 || uint64_t(fp) > header_.extra_size || header_.extra_size - uint64_t(fp) < 3)
    return file_->error_at(row + InsRecLayout::kDisasmFP, ins_name(id) + ": disassembly outside the extra area");
  const uint64_t at = header_.extra_fp + uint64_t(fp);
  const int16_t len = load_le_i16(file_->data() + at);
  if (len < 0 || uint64_t(len) + 3 > header_.extra_size - uint64_t(fp))
    return file_->error_at(at, ins_name(id) + ": disassembly string of " + std::to_string(len) +
                                   " characters runs past the extra area");
  return std::string(reinterpret_cast<const char*>(file_->data() + at + 2), size_t(len));
}

}  // namespace ttd::fmt::umtrace
