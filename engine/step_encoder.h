// Writes a chunk's step stream (format: engine/step_format.h; overview:
// engine/step_codec.h). Each index builder (IndexBuilder, SegmentEncoder)
// owns one and calls reset() at each chunk start. Hot: every step of
// every indexed trace passes through begin_step and the effect calls, so
// the common paths are inline here.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <cstdint>
#include <span>
#include <string_view>

#include "engine/byte_codec.h"
#include "engine/step_chunk_history.h"
#include "engine/step_format.h"
#include "engine/step_pc_memo.h"
#include "state/byte_order.h"  // load_le
#include "formats/common/trace_sink.h"
#include "state/arch.h"

namespace ttd {

inline size_t var_len(uint64_t v) { return v < 0x80 ? 1 : size_t(64 - std::countl_zero(v) + 6) / 7; }

class StepEncoder {
 public:
  explicit StepEncoder(const ArchDesc& arch) : arch_(&arch) {}
  void reset();  // at each chunk start
  // Inline: called once per step of every trace. The header and its fields
  // go out at once; effects are written straight after them behind a
  // one-byte length that end_step() fills in (widening it in the rare step
  // with 128 bytes of effects or more), so the common step is encoded
  // without a second copy.
  [[gnu::always_inline]] void begin_step(uint32_t tidx, uint64_t pid, uint64_t pc, uint32_t size, fmt::StepKind kind) {
    end_step();
    open_ = true;
    eff_tidx_ = tidx;
    eff_pid_ = pid;
    nattrs_ = 0;
    short_regs_ = short_reg_bytes_ = 0;
    attrs_.clear();
    uint8_t h = 0;
    if (tidx == prev_tidx_) h |= kStepSameThread;
    if (pc == memo_.predicted_pc(prev_next_pc_)) h |= kStepFallThroughPc;
    if (size == memo_.visit(pc, prev_size_)) h |= kStepSameSize;
    memo_.size_is(pc, size);
    if (kind == fmt::StepKind::Instruction) h |= kStepInstruction;
    header_ = h;
    header_pos_ = out_.size();
    uint8_t* p = out_.reserve(32);  // header, three varints, kind, length
    *p++ = h;
    if (!(h & kStepSameThread)) p += put_var(tidx, p);
    if (!(h & kStepFallThroughPc)) p += put_var(zigzag(int64_t(pc - prev_next_pc_)), p);
    if (!(h & kStepSameSize)) p += put_var(size, p);
    if (!(h & kStepInstruction)) *p++ = uint8_t(kind);
    *p++ = 0;  // effects length, filled in by end_step()
    out_.commit(p);
    effects_pos_ = out_.size();
    prev_tidx_ = tidx;
    prev_next_pc_ = pc + size;
    prev_size_ = size;
  }
  void attr(uint32_t key_id, const fmt::AttrValue& v);
  void attr_u64(uint32_t key_id, uint64_t v) { attr_u64s(&key_id, &v, 1); }
  // Several unsigned attributes in a row (XRay steps carry four).
  void attr_u64s(const uint32_t* keys, const uint64_t* values, size_t n) {
    if (!open_) return;
    ByteWriter& w = attr_out();
    nattrs_ += uint32_t(n);
    uint8_t* p = w.reserve(20 * n);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t key_id = keys[i];
      const uint64_t v = values[i], key = uint64_t(key_id) << kAttrTypeBits;
      if (key_id >= kMaxDeltaAttrKeys) [[unlikely]] {
        p += put_var(key | kAttrU64, p);
        p += put_var(v, p);
        continue;
      }
      const uint64_t delta = zigzag(int64_t(v - attr_last_[key_id]));
      attr_last_[key_id] = v;
      if (delta == 0) {
        p += put_var(key | kAttrU64Same, p);
      } else if (delta < v) {  // a smaller number is never a longer varint
        p += put_var(key | kAttrU64Delta, p);
        p += put_var(delta, p);
      } else {
        p += put_var(key | kAttrU64, p);
        p += put_var(v, p);
      }
    }
    w.commit(p);
  }
  // Inline for the common register (number below 128, at most 8 bytes,
  // little-endian target and host); the rest in reg_general.
  [[gnu::always_inline]] void reg(uint32_t tidx, uint16_t reg, std::span<const uint8_t> value) {
    const uint32_t size = arch_->regs[reg].bytes();
    if (size > 8 || reg >= kShortRegs || arch_->endian != Endian::Little || std::endian::native != std::endian::little)
        [[unlikely]]
      return reg_general(tidx, reg, value);
    reg_short(tidx, reg, load_le(value.data(), std::min<size_t>(value.size(), size)));
  }
  // reg() of a little-endian target's register of `bytes` (1 to 8) bytes,
  // from the integer those bytes hold (the bits above them ignored).
  [[gnu::always_inline]] void reg_value(uint32_t tidx, uint16_t reg, uint64_t value, uint32_t bytes) {
    if (reg >= kShortRegs || bytes != arch_->regs[reg].bytes() || arch_->endian != Endian::Little ||
        std::endian::native != std::endian::little) [[unlikely]] {
      uint8_t le[8];
      store_le64(le, value);
      return this->reg(tidx, reg, {le, bytes < 8 ? bytes : 8});
    }
    reg_short(tidx, reg, bytes >= 8 ? value : value & ((uint64_t(1) << (8 * bytes)) - 1));
  }
  void reg_unknown(uint32_t tidx, uint16_t reg);
  // A register below kShortRegs of at most 8 bytes, as its integer value.
  [[gnu::always_inline]] void reg_short(uint32_t tidx, uint16_t reg, uint64_t x) {
    before_effect();
    ctx_thread(tidx);
    uint64_t& last = history_.slot(tidx, reg);
    const uint64_t d = zigzag(int64_t(x - last)), dp = zigzag(int64_t(x - (&last)[RegisterHistory::kPrior]));
    const bool prior = var_len(dp) < var_len(d);
    uint8_t* p = out_.reserve(11);  // tag with the register number, value delta
    *p++ = uint8_t(kRegTag | (prior ? kRegFromPrior : 0) | reg);
    const size_t n = put_var(prior ? dp : d, p);
    out_.commit(p + n);
    short_reg_bytes_ += uint32_t(1 + n);
    ++short_regs_;
    RegisterHistory::note(last, x);
  }
  // Inline, as begin_step: one of the memory accesses is on about half the
  // steps of a trace that records them.
  void mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> bytes) {
    before_effect();
    ctx_pid(pid);
    const size_t n = bytes.size();
    if (n >= 2 && n <= 8) {
      const uint64_t v = load_le(bytes.data(), n);
      if (var_len(v) < n) {  // a small value: shorter as a varint
        uint8_t* p = out_.reserve(31);  // tag, distance, size, value
        p = put_access(p, kAccWriteVar, addr, n);
        out_.commit(p + put_var(v, p));
        return;
      }
    }
    out_.commit(put_access(out_.reserve(21), kAccWrite, addr, n));
    out_.bytes(bytes.data(), n);
  }
  void mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) {
    before_effect();
    ctx_pid(pid);
    const bool has = bytes.size() == size && size > 0;
    out_.commit(put_access(out_.reserve(21), has ? kAccReadData : kAccRead, addr, size));
    if (has) out_.bytes(bytes.data(), size);
  }
  void mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) {
    before_effect();
    ctx_pid(pid);
    out_.commit(put_access(out_.reserve(21), kAccUnknown, addr, size));
  }
  void mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name);
  void mem_unmap(uint64_t pid, uint64_t addr, uint64_t size);
  void mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot);
  void thread_begin(uint32_t tidx);
  void thread_end(uint32_t tidx);
  // Appends the open step to out() (no-op if no step is open). A step
  // with neither effects nor attributes is complete as begin_step wrote it
  // but for the length byte.
  [[gnu::always_inline]] void end_step() {
    if (!open_) return;
    if (!attrs_direct_ && nattrs_ == 0) {
      const size_t len = out_.size() - effects_pos_;
      if (len == 0) {
        open_ = false;
        out_.truncate(effects_pos_ - 1);
        return;
      }
      if (short_regs_ - 1 < kStepMaxShortRegs && short_reg_bytes_ == len) {
        // Short register effects only: no length byte.
        open_ = false;
        uint8_t* d = out_.data();
        std::memmove(d + effects_pos_ - 1, d + effects_pos_, len);
        out_.truncate(out_.size() - 1);
        d[header_pos_] = uint8_t(header_ | (short_regs_ << kStepShortRegsShift));
        return;
      }
      if (len < 0x80) {  // effects whose length fits the byte begin_step left
        open_ = false;
        out_.data()[effects_pos_ - 1] = uint8_t(len);
        out_.data()[header_pos_] = header_ | kStepHasEffects;
        return;
      }
    }
    end_step_with_blocks();
  }
  ByteWriter& out() { return out_; }

 private:
  // Attributes of a step go straight into out_ while it has no effects
  // (XRay steps never have any); once it has, into attrs_, to follow the
  // effects at end_step(). An effect after direct attributes moves them.
  ByteWriter& attr_out() {
    if (attrs_direct_) return out_;
    if (nattrs_ == 0 && out_.size() == effects_pos_) {
      attrs_direct_ = true;  // the effects length byte becomes the attributes'
      return out_;
    }
    return attrs_;
  }
  void before_effect() {
    if (attrs_direct_) [[unlikely]]
      move_attrs_aside();
  }
  void move_attrs_aside();
  void end_step_with_blocks();
  void fill_length(size_t start);
  void reg_general(uint32_t tidx, uint16_t reg, std::span<const uint8_t> value);
  void ctx_thread(uint32_t tidx) {
    if (tidx != eff_tidx_) [[unlikely]]
      switch_thread(tidx);
  }
  void switch_thread(uint32_t tidx);
  void ctx_pid(uint64_t pid) {
    if (pid != eff_pid_) [[unlikely]]
      switch_pid(pid);
  }
  void switch_pid(uint64_t pid);
  // A memory access's tag, address distance and size (room for 21 bytes).
  uint8_t* put_access(uint8_t* p, uint8_t kind, uint64_t addr, uint64_t size) {
    uint64_t zz;
    const uint32_t slot = ends_.nearest(addr, zz);
    const uint8_t code = access_size_code(size);
    *p++ = uint8_t(kAccessTag + kind * 16 + code * 4 + slot);
    p += put_var(zz, p);
    if (code == 0) p += put_var(size, p);
    ends_.update(slot, zz, addr + size);
    return p;
  }
  // A mapping change's address (relative to where the last one ended) and size.
  uint8_t* put_mem_addr(uint8_t* p, uint64_t addr, uint64_t size) {
    p += put_var(zigzag(int64_t(addr - prev_addr_)), p);
    p += put_var(size, p);
    prev_addr_ = addr + size;
    return p;
  }
  void mem_addr(uint64_t addr, uint64_t size) { out_.commit(put_mem_addr(out_.reserve(20), addr, size)); }

  const ArchDesc* arch_;
  ByteWriter out_, attrs_;
  RegisterHistory history_;
  AccessEnds ends_;
  StepPcMemo memo_;
  std::array<uint64_t, kMaxDeltaAttrKeys> attr_last_{};  // per attribute key: its last unsigned value
  bool open_ = false, attrs_direct_ = false;
  uint32_t nattrs_ = 0;
  // Short register effects of the open step and their bytes (all of the
  // effects when these bytes are the effects' length).
  uint32_t short_regs_ = 0, short_reg_bytes_ = 0;
  // The open step's header byte (without the block flags), where it and
  // its effects start in out_, and what the previous step was.
  uint8_t header_ = 0;
  size_t header_pos_ = 0, effects_pos_ = 0;
  uint32_t prev_tidx_ = ~0u;
  uint64_t prev_next_pc_ = 0;
  uint32_t prev_size_ = ~0u;
  // Effect context.
  uint32_t eff_tidx_ = 0;
  uint64_t eff_pid_ = 0;
  uint64_t prev_addr_ = 0;  // end of the last mapping change
};

}  // namespace ttd
