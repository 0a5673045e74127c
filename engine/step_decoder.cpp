#include "engine/step_decoder.h"

#include <algorithm>
#include <bit>
#include <memory>

#include "engine/state_apply.h"
#include "state/target_value.h"

namespace ttd {

namespace {
// u64 -> register value for registers of at most 8 bytes.
void u64_to_value(const ArchDesc& a, uint64_t x, uint8_t* out, uint32_t size) {
  store_target_value(a.endian, out, size, x);
}
}  // namespace

StepDecoder::StepDecoder(const ArchDesc& arch, const uint8_t* data, size_t size) : arch_(&arch), in_(data, size) {
  prev_tidx_ = ~0u;
  prev_size_ = ~0u;
  for (size_t r = 0; r < arch.regs.size() && r < kShortRegs; ++r)
    if (arch.regs[r].bytes() <= 8) short_regs_ok_ |= uint64_t(1) << r;
}

void StepDecoder::reset(const uint8_t* data, size_t size, StepStreamSource* more) {
  in_ = ByteReader(data, size);
  base_ = data;
  more_ = more;
  if (more_) {
    note_available(size);
  } else {
    refill_at_ = UINTPTR_MAX;
  }
  history_.reset();
  ends_.reset();
  memo_.reset();
  attr_last_.fill(0);
  step_u64_.clear();
  if (value_blocks_.size() > 1) value_blocks_.resize(1);
  value_used_ = 0;
  ok_ = true;
  prev_tidx_ = ~0u;
  prev_next_pc_ = 0;
  prev_size_ = ~0u;
  prev_addr_ = 0;
  deferred_.clear();
  deferred_tidx_ = ~0u;
}

void StepDecoder::defer_registers(uint16_t immediate) {
  defer_ = true;
  immediate_reg_ = immediate;
}

uint64_t* StepDecoder::other_deferred_mask(uint32_t tidx) {
  size_t i = 0;
  while (i < deferred_.size() && deferred_[i].first != tidx) ++i;
  if (i == deferred_.size()) deferred_.emplace_back(tidx, std::array<uint64_t, 4>{});
  deferred_tidx_ = tidx;
  deferred_at_ = i;
  return deferred_[i].second.data();
}

void StepDecoder::flush_registers(EffectVisitor& v) {
  for (const auto& [tidx, mask] : deferred_)
    for (uint32_t w = 0; w < mask.size(); ++w)
      for (uint64_t bits = mask[w]; bits; bits &= bits - 1) {
        const auto reg = uint16_t(w * 64 + uint32_t(std::countr_zero(bits)));
        const uint32_t size = arch_->regs[reg].bytes();
        uint8_t value[8];
        u64_to_value(*arch_, history_.slot(tidx, reg), value, size);
        v.reg(tidx, reg, value, size);
      }
  deferred_.clear();
  deferred_tidx_ = ~0u;
}

void StepDecoder::note_available(size_t avail) {
  if (more_->complete()) {
    refill_at_ = UINTPTR_MAX;
  } else {
    const uintptr_t end = uintptr_t(base_) + avail;
    refill_at_ = end >= kRefillSlack ? end - kRefillSlack : 0;
  }
}

// Out of line: once every few kilobytes of a stream given in part.
[[gnu::noinline]] bool StepDecoder::refill(size_t need) {
  if (!in_.ok()) return ok_ = false;  // a new reader would forget the error
  const size_t at = size_t(in_.pos() - base_);
  const size_t want = need > SIZE_MAX - at ? SIZE_MAX : at + need;
  if (!more_ || !more_->make_available(want)) return ok_ = false;
  const size_t avail = more_->available();
  if (avail < at) return ok_ = false;
  in_ = ByteReader(base_ + at, avail - at);
  note_available(avail);
  return true;
}

bool StepDecoder::next(DecodedStep& s) { return next_step(s); }

inline bool StepDecoder::next_step(DecodedStep& s) {
  if (!ok_) return false;
  if (uintptr_t(in_.pos()) > refill_at_) [[unlikely]] {
    if (!refill(kRefillSlack)) return false;
  }
  if (in_.at_end()) return false;
  uint8_t h = in_.u8();
  s.tidx = (h & kStepSameThread) ? prev_tidx_ : uint32_t(in_.var());
  s.pc = (h & kStepFallThroughPc) ? memo_.predicted_pc(prev_next_pc_) : prev_next_pc_ + uint64_t(in_.svar());
  const uint32_t predicted_size = memo_.visit(s.pc, prev_size_);
  s.size = (h & kStepSameSize) ? predicted_size : uint32_t(in_.var());
  memo_.size_is(s.pc, s.size);
  s.kind = (h & kStepInstruction) ? fmt::StepKind::Instruction : fmt::StepKind(in_.u8());
  s.attrs = ByteReader();
  s.effects = ByteReader();
  if (const uint32_t n = h >> kStepShortRegsShift) {
    // Short register effects without a length byte: find where they end
    // (n tags of kRegTag and up, each followed by a varint of at most 10
    // bytes), on the bytes themselves: this runs for most steps.
    const uint8_t* p = in_.pos();
    const size_t avail = in_.remaining();
    size_t len = 0;
    bool bad = (h & kStepHasEffects) != 0;
    for (uint32_t i = 0; i < n && !bad; ++i) {
      if (len >= avail || p[len] < kRegTag) {
        bad = true;
        break;
      }
      ++len;
      const size_t start = len;
      while (len < avail && (p[len] & 0x80) && len - start < 9) ++len;
      if (len >= avail || (p[len] & 0x80)) bad = true;
      ++len;
    }
    if (bad) {
      ok_ = false;
      return false;
    }
    s.effects = ByteReader(in_.take(len), len);
  }
  if (h & kStepHasEffects) {
    uint64_t n = in_.var();
    if (n > in_.remaining() && refill_at_ != UINTPTR_MAX) refill(n);
    const uint8_t* p = in_.take(n);
    if (p) s.effects = ByteReader(p, n);
  }
  step_u64_.clear();
  if (h & kStepHasAttrs) {
    uint64_t n = in_.var();
    if (n > in_.remaining() && refill_at_ != UINTPTR_MAX) refill(n);
    const uint8_t* p = in_.take(n);
    if (p) {
      s.attrs = ByteReader(p, n);
      if (!resolve_u64_attrs(s.attrs)) ok_ = false;
    }
  }
  if (!ok_ || !in_.ok() || s.tidx == ~0u || s.size == ~0u) {
    ok_ = false;
    return false;
  }
  prev_tidx_ = s.tidx;
  prev_next_pc_ = s.pc + s.size;
  prev_size_ = s.size;
  return true;
}

// A register of at most 8 bytes: its delta from the register's last value.
template <class V>
[[gnu::always_inline]] inline void StepDecoder::reg_delta(ByteReader& r, uint32_t tidx, uint16_t reg, V& v, bool from_prior) {
  const uint32_t size = arch_->regs[reg].bytes();
  uint64_t& last = history_.slot(tidx, reg);
  RegisterHistory::note(last, (from_prior ? (&last)[RegisterHistory::kPrior] : last) + uint64_t(r.svar()));
  if (defer_ && reg != immediate_reg_ && reg < 256) [[likely]] {
    deferred_mask(tidx)[reg >> 6] |= 1ull << (reg & 63);
    return;
  }
  uint8_t value[8];
  u64_to_value(*arch_, last, value, size);
  v.reg(tidx, reg, value, size);
}

// One memory access whose tag (kAccessTag and up) has been read.
template <class V>
[[gnu::always_inline]] inline bool StepDecoder::access(uint8_t tag, ByteReader& r, V& v, uint64_t pid) {
  const uint32_t x = tag - kAccessTag, kind = x >> 4, code = (x >> 2) & 3u, slot = x & 3u;
  if (kind >= kAccKinds) return false;
  const uint64_t zz = r.var();
  const uint64_t addr = ends_.end(slot) + uint64_t(unzigzag(zz));
  const uint64_t size = code ? kAccessCodeSize[code] : r.var();
  if (!r.ok()) return false;
  ends_.update(slot, zz, addr + size);
  switch (kind) {
    case kAccWrite: {
      const uint8_t* p = r.take(size);
      if (!p) return false;
      v.mem_write(pid, addr, p, size);
      return true;
    }
    case kAccWriteVar: {
      const uint64_t value = r.var();
      if (!r.ok() || size < 2 || size > 8 || (size < 8 && value >> (8 * size) != 0)) return false;
      uint8_t* p = value_room(size);
      store_le(p, value, size);
      v.mem_write(pid, addr, p, size);
      return true;
    }
    case kAccRead: v.mem_read(pid, addr, size, nullptr); return true;
    case kAccReadData: {
      const uint8_t* p = r.take(size);
      if (!p) return false;
      v.mem_read(pid, addr, size, p);
      return true;
    }
    default: v.mem_unknown(pid, addr, size); return true;
  }
}

template <class V>
bool StepDecoder::effects_of(const DecodedStep& s, V& v, uint64_t step_pid) {
  ByteReader r = s.effects;
  uint32_t tidx = s.tidx;
  uint64_t pid = step_pid;
  uint64_t& prev_addr = prev_addr_;
  auto addr_size = [&](uint64_t& addr, uint64_t& size) {
    addr = prev_addr + uint64_t(r.svar());
    size = r.var();
    prev_addr = addr + size;
  };
  while (r.ok() && !r.at_end()) {
    const uint8_t t = r.u8();
    if (t >= kRegTag) {  // a register of at most 8 bytes
      const uint16_t reg = t & (kShortRegs - 1);
      if (!(short_regs_ok_ >> reg & 1)) return ok_ = false;
      reg_delta(r, tidx, reg, v, t & kRegFromPrior);
      continue;
    }
    if (t >= kAccessTag) {
      if (!access(t, r, v, pid)) return ok_ = false;
      continue;
    }
    uint64_t addr = 0, size = 0;
    switch (EffectTag(t)) {
      case EffectTag::Reg: {
        uint64_t reg = r.var();
        if (reg >= arch_->regs.size()) return ok_ = false;
        uint32_t rsize = arch_->regs[reg].bytes();
        if (rsize <= 8) {
          reg_delta(r, tidx, uint16_t(reg), v);
        } else {
          const uint8_t* p = r.take(rsize);
          if (!p) return ok_ = false;
          v.reg(tidx, uint16_t(reg), p, rsize);
        }
        break;
      }
      case EffectTag::RegUnknown: {
        uint64_t reg = r.var();
        if (reg >= arch_->regs.size()) return ok_ = false;
        history_.slot(tidx, uint16_t(reg)) = 0;
        if (defer_ && reg < 256) deferred_mask(tidx)[reg >> 6] &= ~(1ull << (reg & 63));
        v.reg_unknown(tidx, uint16_t(reg));
        break;
      }
      case EffectTag::MemMap: {
        addr_size(addr, size);
        uint8_t prot = r.u8();
        std::string name = r.str();
        v.mem_map(pid, addr, size, prot, name);
        break;
      }
      case EffectTag::MemUnmap:
        addr_size(addr, size);
        v.mem_unmap(pid, addr, size);
        break;
      case EffectTag::MemProt: {
        addr_size(addr, size);
        v.mem_protect(pid, addr, size, r.u8());
        break;
      }
      case EffectTag::ThreadBegin:
        v.thread_begin(uint32_t(r.var()));
        break;
      case EffectTag::ThreadEnd:
        v.thread_end(uint32_t(r.var()));
        break;
      case EffectTag::CtxThread:
        tidx = uint32_t(r.var());
        break;
      case EffectTag::CtxPid:
        pid = r.var();
        break;
      default:
        return ok_ = false;
    }
  }
  if (!r.ok()) ok_ = false;
  return ok_;
}

bool StepDecoder::effects(const DecodedStep& s, EffectVisitor& v, uint64_t step_pid) {
  return effects_of(s, v, step_pid);
}

// Flattened: the header decoder, the effects and the applier's calls all
// inline into this loop, which runs for every step a seek replays.
[[gnu::flatten]] bool StepDecoder::replay(DecodedStep& s, uint64_t n, bool read_after_last, StateApplier& a,
                         const std::vector<ThreadSlot>& slots, ReplayDone& done) {
  for (uint64_t i = 0; i < n; ++i) {
    // The pc goes in before the effects only for a step of size 0:
    // otherwise end_step() sets it after them and nothing between reads it.
    if (s.size == 0) a.begin_step(s.tidx, s.pc, s.size);
    if (!effects_of(s, a, slots[s.tidx].pid)) return false;
    a.end_step(s.tidx, s.pc, s.size);
    ++done.steps;
    done.last_tidx = s.tidx;
    if (i + 1 == n && !read_after_last) break;
    if (!next_step(s) || s.tidx >= slots.size()) return false;
  }
  return true;
}

uint8_t* StepDecoder::value_room(size_t n) {
  constexpr size_t kBlock = 4096;
  if (value_blocks_.empty() || kBlock - value_used_ < n) {
    value_blocks_.push_back(std::make_unique_for_overwrite<uint8_t[]>(kBlock));
    value_used_ = 0;
  }
  uint8_t* p = value_blocks_.back().get() + value_used_;
  value_used_ += n;
  return p;
}

// Walks a step's attributes once, in order, to keep the per-key history
// of unsigned values current; the values it resolves wait in step_u64_
// for attrs().
bool StepDecoder::resolve_u64_attrs(ByteReader r) {
  while (r.ok() && !r.at_end()) {
    const uint64_t head = r.var();
    const uint64_t key = head >> kAttrTypeBits;
    switch (head & kAttrTypeMask) {
      case kAttrU64: {
        const uint64_t x = r.var();
        if (key < kMaxDeltaAttrKeys) attr_last_[key] = x;
        step_u64_.push_back(x);
        break;
      }
      case kAttrU64Same:
      case kAttrU64Delta: {
        if (key >= kMaxDeltaAttrKeys) return false;
        if ((head & kAttrTypeMask) == kAttrU64Delta) attr_last_[key] += uint64_t(r.svar());
        step_u64_.push_back(attr_last_[key]);
        break;
      }
      case kAttrI64: r.svar(); break;
      case kAttrStr: r.take(r.var()); break;  // skipped, not copied
      case kAttrList: {
        uint64_t n = r.var();
        if (n > r.remaining()) return false;
        for (uint64_t i = 0; i < n; ++i) r.var();
        break;
      }
      default: return false;
    }
  }
  return r.ok();
}

bool StepDecoder::attrs(const DecodedStep& s, std::vector<std::pair<uint32_t, fmt::AttrValue>>& out) const {
  ByteReader r = s.attrs;
  size_t u = 0;
  while (r.ok() && !r.at_end()) {
    const uint64_t head = r.var();
    const auto key = uint32_t(head >> kAttrTypeBits);
    switch (head & kAttrTypeMask) {
      case kAttrU64: r.var(); [[fallthrough]];
      case kAttrU64Same:
      case kAttrU64Delta:
        if ((head & kAttrTypeMask) == kAttrU64Delta) r.svar();
        if (u >= step_u64_.size()) return false;
        out.emplace_back(key, step_u64_[u++]);
        break;
      case kAttrI64: out.emplace_back(key, r.svar()); break;
      case kAttrStr: out.emplace_back(key, r.str()); break;
      case kAttrList: {
        uint64_t n = r.var();
        if (n > r.remaining()) return false;
        std::vector<uint64_t> l(n);
        for (auto& x : l) x = r.var();
        out.emplace_back(key, std::move(l));
        break;
      }
      default: return false;
    }
  }
  return r.ok();
}

}  // namespace ttd
