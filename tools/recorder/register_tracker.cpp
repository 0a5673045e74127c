#include "tools/recorder/register_tracker.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>

#include "state/unicorn_library.h"

namespace ttd::rec {

RegisterTracker::~RegisterTracker() {
  if (cs_) cs_close(&cs_);
}

Status RegisterTracker::init(uc_engine* uc, const ArchDesc& arch, const GuestArch& guest) {
  uc_ = uc;
  for (size_t i = 0; i < kMaxBatch; ++i) batch_ptrs_[i] = batch_[i].bytes;
  // The library is loaded (uc is open): look the function up in it, not in
  // ttd, which defines the same name. Without it, the forwarder does.
  if (void* lib = dlopen(unicorn_library::file().c_str(), RTLD_NOW | RTLD_NOLOAD)) {
    if (void* f = dlsym(lib, "uc_reg_read_batch")) read_batch_ = reinterpret_cast<ReadBatch>(f);
    dlclose(lib);  // NOLOAD took a reference; unicorn_library keeps its own
  }
  arch_ = &arch;
  guest_ = &guest;
  if (arch.regs.empty()) return make_error("record", "no register table for " + arch.name);
  uint32_t offset = 0;
  for (uint16_t i = 0; i < arch.regs.size(); ++i) {
    const RegisterDesc& d = arch.regs[i];
    if (d.unicorn_id < 0 || i == arch.pc_index || d.bytes() == 0 || d.bytes() > 64) continue;
    // Only registers this Unicorn build can actually read.
    alignas(16) uint8_t probe[64] = {};
    if (uc_reg_read(uc, d.unicorn_id, probe) != UC_ERR_OK) continue;
    // Read again over 0xff bytes: where both reads agree on every byte of
    // the table's width, Unicorn stored them all (a byte it leaves alone
    // keeps 0x00 in one and 0xff in the other).
    alignas(16) uint8_t probe_ff[64];
    std::memset(probe_ff, 0xff, sizeof probe_ff);
    const bool fills = uc_reg_read(uc, d.unicorn_id, probe_ff) == UC_ERR_OK &&
                       std::memcmp(probe, probe_ff, d.bytes()) == 0;
    slot_by_name_[d.name] = uint16_t(regs_.size());
    regs_.push_back({d.unicorn_id, i, uint16_t(d.bytes()), offset, fills});
    offset += d.bytes();
  }
  // 8 bytes of slack: compare_value loads 8 bytes for any register up to 8 wide.
  shadow_.assign(offset + 8, 0);
  all_rows_.resize(regs_.size());
  all_ptrs_.resize(regs_.size());
  all_ids_.resize(regs_.size());
  for (size_t s = 0; s < regs_.size(); ++s) {
    all_ptrs_[s] = all_rows_[s].bytes;
    all_ids_[s] = regs_[s].uc_id;
  }
  if (cs_open(cs_arch(arch.cs_arch), cs_mode(arch.cs_mode), &cs_) != CS_ERR_OK)
    return make_error("record", "cannot open Capstone for " + arch.name);
  cs_option(cs_, CS_OPT_DETAIL, CS_OPT_ON);
  return {};
}

void RegisterTracker::load_all() {
  for (size_t s = 0; s < regs_.size(); ++s) {
    alignas(16) uint8_t buf[64] = {};
    uc_reg_read(uc_, regs_[s].uc_id, buf);
    std::memcpy(shadow_.data() + regs_[s].offset, buf, regs_[s].bytes);
  }
}

void RegisterTracker::rewind(const InsnInfo& info) {
  for (uint16_t s : info.slots) {
    alignas(16) uint8_t buf[kRowBytes] = {};
    std::memcpy(buf, shadow_.data() + regs_[s].offset, regs_[s].bytes);
    uc_reg_write(uc_, regs_[s].uc_id, buf);
  }
}

void RegisterTracker::read_all() {
  for (size_t s = 0; s < regs_.size(); ++s) clear_row(all_rows_[s].bytes, uint16_t(s));
  // Each register was readable on its own (init()); a batch reads them in
  // the same order with the same code, so a failure here is not expected,
  // and the one-by-one reads stay as the fallback.
  if (read_batch_(uc_, all_ids_.data(), all_ptrs_.data(), int(regs_.size())) == UC_ERR_OK) return;
  for (size_t s = 0; s < regs_.size(); ++s) {
    clear_row(all_rows_[s].bytes, uint16_t(s));
    uc_reg_read(uc_, regs_[s].uc_id, all_rows_[s].bytes);
  }
}

uint64_t RegisterTracker::diff_all(InsnInfo* info, const Emit& emit) {
  uint64_t misses = 0;
  auto note = [&](uint16_t index, std::span<const uint8_t> v) { emit(index, v); };
  read_all();
  for (uint16_t s = 0; s < regs_.size(); ++s) {
    if (!compare_value(s, all_rows_[s].bytes, note) || !info || info->compare_all) continue;
    if (info->slots.contains(s)) continue;
    // Not predicted: remember it for this pc from now on.
    add_slot(*info, s);
    if (info->learned) ++misses;
  }
  return misses;
}

InsnInfo& RegisterTracker::lookup_slow(uint64_t pc, InsnInfo*& f) {
  auto& slot = cache_[pc];
  if (!slot) {
    slot = std::make_unique<InsnInfo>();
    slot->pc = pc;
    decode(*slot);
    code_pages_.insert(pc >> kPageShift);
  }
  f = slot.get();
  return *slot;
}

cs_insn* RegisterTracker::disassemble(uint64_t pc) const {
  // Capstone takes the first instruction of what it is given: 16 bytes,
  // fewer at the end of a mapping. Not the code hook's size, which for an
  // instruction Unicorn calls invalid is no length (0xf1f1f1f1 for
  // popcnt, 5 for a 9-byte rip-relative movbe).
  uint8_t code[16] = {};
  size_t n = sizeof code;
  while (n > 0 && uc_mem_read(uc_, pc, code, n) != UC_ERR_OK) --n;
  cs_insn* insn = nullptr;
  if (n == 0 || cs_disasm(cs_, code, n, pc, 1, &insn) != 1) return nullptr;
  return insn;
}

void RegisterTracker::decode(InsnInfo& info) {
  cs_insn* insn = disassemble(info.pc);
  if (!insn) {
    info.compare_all = true;
    return;
  }
  // Before the register lists: Capstone has none for some of these (movbe).
  if (arch_->id == ArchId::X86_64) info.own_bits = uint8_t(own_run(*insn));
  cs_regs rd, wr;
  uint8_t nrd = 0, nwr = 0;
  if (cs_regs_access(cs_, insn, rd, &nrd, wr, &nwr) != CS_ERR_OK) {
    info.compare_all = true;
    cs_free(insn, 1);
    return;
  }
  std::vector<std::string> written;
  for (uint8_t i = 0; i < nwr; ++i) written.emplace_back(cs_reg_name(cs_, wr[i]));
  std::vector<std::string> names;
  for (const auto& w : written) names.push_back(guest_->parent_register(w));
  guest_->implicit_writes(*insn, written, names);
  if (arch_->id == ArchId::X86_64) {
    info.host_fp = classify_sse(*insn);
    if (info.host_fp.op == HostFpOpcode::None) info.host_fp = classify_x87(*insn);
    // The host evaluation may set MXCSR's sticky flags.
    if (info.host_fp.op != HostFpOpcode::None && !is_x87(info.host_fp)) names.push_back("mxcsr");
    info.x87_env_store = stores_x87_environment(*insn);
    info.tsc = insn->id == X86_INS_RDTSC ? 1 : insn->id == X86_INS_RDTSCP ? 2 : 0;
  }
  cs_free(insn, 1);
  for (const auto& n : names) {
    auto it = slot_by_name_.find(n);
    if (it == slot_by_name_.end()) continue;  // pc, zero registers, untracked
    if (!info.slots.contains(it->second)) add_slot(info, it->second);
  }
}

const MemoryOperand& RegisterTracker::memory_operand(uint64_t pc) {
  auto [it, fresh] = mem_operands_.try_emplace(pc);
  if (!fresh) return it->second;
  if (cs_insn* insn = disassemble(pc)) {
    it->second = ttd::rec::memory_operand(*insn);
    cs_free(insn, 1);
  }
  return it->second;
}

void RegisterTracker::invalidate_cache() {
  cache_.clear();
  mem_operands_.clear();
  code_pages_.clear();
  std::fill(front_.begin(), front_.end(), nullptr);
}

void RegisterTracker::invalidate(uint64_t begin, uint64_t end) {
  if (end <= begin) return;
  // An instruction may start up to 15 bytes before the range and reach into it.
  begin = begin > 15 ? begin - 15 : 0;
  const uint64_t first_page = begin >> kPageShift, last_page = (end - 1) >> kPageShift;
  auto page = code_pages_.lower_bound(first_page);
  if (page == code_pages_.end() || *page > last_page) return;  // no decoded code there
  code_pages_.erase(page, code_pages_.upper_bound(last_page));
  std::erase_if(mem_operands_, [&](const auto& e) { return e.first >= begin && e.first < end; });
  for (InsnInfo*& f : front_)
    if (f && f->pc >= begin && f->pc < end) f = nullptr;
  for (auto it = cache_.begin(); it != cache_.end();) {
    if (it->first >= begin && it->first < end) {
      it = cache_.erase(it);
      continue;
    }
    // An entry on a boundary page, outside the range: its page stays known.
    const uint64_t p = it->first >> kPageShift;
    if (p >= first_page && p <= last_page) code_pages_.insert(p);
    ++it;
  }
}

}  // namespace ttd::rec
