#include "engine/step_encoder.h"

#include <algorithm>
#include <cstring>

#include "state/target_value.h"

namespace ttd {

namespace {
// Register value -> u64 for registers of at most 8 bytes.
uint64_t value_to_u64(const ArchDesc& a, std::span<const uint8_t> v, uint32_t size) {
  const size_t n = std::min<size_t>(v.size(), size);
  if (a.endian == Endian::Little) return load_le(v.data(), n);
  return target_value_u64(Endian::Big, v.data() + v.size() - n, n);  // short big-endian values hold the low-order bytes
}
}  // namespace

void StepEncoder::reset() {
  end_step();
  history_.reset();
  ends_.reset();
  memo_.reset();
  attr_last_.fill(0);
  prev_tidx_ = ~0u;
  prev_next_pc_ = 0;
  prev_size_ = ~0u;
  prev_addr_ = 0;
}

// The block that starts at `start` gets its byte length in the byte
// before it (widened in place when it takes more than one).
void StepEncoder::fill_length(size_t start) {
  const size_t len = out_.size() - start;
  if (len < 0x80) {  // the common case: one byte
    out_.data()[start - 1] = uint8_t(len);
    return;
  }
  uint8_t v[10];
  const size_t k = put_var(len, v);
  if (k > 1) out_.open_gap(start, k - 1);
  std::memcpy(out_.data() + start - 1, v, k);
}

void StepEncoder::move_attrs_aside() {
  attrs_.clear();
  attrs_.bytes(out_.data() + effects_pos_, out_.size() - effects_pos_);
  out_.truncate(effects_pos_);
  attrs_direct_ = false;
}

void StepEncoder::end_step_with_blocks() {
  open_ = false;
  uint8_t h = header_;
  if (attrs_direct_) {  // attributes and no effects, already in place
    attrs_direct_ = false;
    fill_length(effects_pos_);
    out_.data()[header_pos_] = h | kStepHasAttrs;
    return;
  }
  if (out_.size() == effects_pos_) {
    out_.truncate(effects_pos_ - 1);
  } else {
    h |= kStepHasEffects;
    fill_length(effects_pos_);
  }
  if (nattrs_) {
    h |= kStepHasAttrs;
    out_.var(attrs_.size());
    out_.short_bytes(attrs_.data(), attrs_.size());
  }
  out_.data()[header_pos_] = h;
}

void StepEncoder::attr(uint32_t key_id, const fmt::AttrValue& v) {
  if (auto* u = std::get_if<uint64_t>(&v)) return attr_u64(key_id, *u);
  if (!open_) return;
  ByteWriter& w = attr_out();
  ++nattrs_;
  const uint64_t key = uint64_t(key_id) << kAttrTypeBits;
  if (auto* i = std::get_if<int64_t>(&v)) {
    w.var(key | kAttrI64);
    w.svar(*i);
  } else if (auto* s = std::get_if<std::string>(&v)) {
    w.var(key | kAttrStr);
    w.str(*s);
  } else if (auto* l = std::get_if<std::vector<uint64_t>>(&v)) {
    w.var(key | kAttrList);
    w.var(l->size());
    for (uint64_t x : *l) w.var(x);
  }
}

void StepEncoder::switch_thread(uint32_t tidx) {
  out_.u8(uint8_t(EffectTag::CtxThread));
  out_.var(tidx);
  eff_tidx_ = tidx;
}
void StepEncoder::switch_pid(uint64_t pid) {
  out_.u8(uint8_t(EffectTag::CtxPid));
  out_.var(pid);
  eff_pid_ = pid;
}

void StepEncoder::reg_general(uint32_t tidx, uint16_t reg, std::span<const uint8_t> value) {
  before_effect();
  ctx_thread(tidx);
  uint32_t size = arch_->regs[reg].bytes();
  out_.u8(uint8_t(EffectTag::Reg));
  out_.var(reg);
  if (size <= 8) {
    uint64_t x = value_to_u64(*arch_, value, size);
    uint64_t& last = history_.slot(tidx, reg);
    out_.svar(int64_t(x - last));
    RegisterHistory::note(last, x);
  } else {
    // Wide registers: full size in target order (zero-extended like RegisterFile).
    uint8_t buf[64] = {0};
    size_t n = std::min<size_t>(value.size(), std::min<uint32_t>(size, 64));
    if (arch_->endian == Endian::Little)
      std::copy_n(value.data(), n, buf);
    else
      std::copy_n(value.data() + value.size() - n, n, buf + size - n);
    out_.bytes(buf, size);
  }
}

void StepEncoder::reg_unknown(uint32_t tidx, uint16_t reg) {
  before_effect();
  ctx_thread(tidx);
  out_.u8(uint8_t(EffectTag::RegUnknown));
  out_.var(reg);
  history_.slot(tidx, reg) = 0;
}

void StepEncoder::mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) {
  before_effect();
  ctx_pid(pid);
  out_.u8(uint8_t(EffectTag::MemMap));
  mem_addr(addr, size);
  out_.u8(prot);
  out_.str(name);
}

void StepEncoder::mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) {
  before_effect();
  ctx_pid(pid);
  out_.u8(uint8_t(EffectTag::MemUnmap));
  mem_addr(addr, size);
}

void StepEncoder::mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) {
  before_effect();
  ctx_pid(pid);
  out_.u8(uint8_t(EffectTag::MemProt));
  mem_addr(addr, size);
  out_.u8(prot);
}

void StepEncoder::thread_begin(uint32_t tidx) {
  before_effect();
  out_.u8(uint8_t(EffectTag::ThreadBegin));
  out_.var(tidx);
}
void StepEncoder::thread_end(uint32_t tidx) {
  before_effect();
  out_.u8(uint8_t(EffectTag::ThreadEnd));
  out_.var(tidx);
}

}  // namespace ttd
