// The index's encoding of the step stream inside one chunk. Each step is a
// header byte, then only what differs from the prediction (thread as the
// previous step's; pc and size as the chunk's earlier visits of the pc
// predict, engine/step_pc_memo.h; kind), then effect and attribute blocks
// prefixed by their byte length so scans can skip them. Register values of
// up to 64 bits are stored as the difference from the same register's last
// value in the chunk, so a counter increment costs one byte. A memory
// access is one tag byte (kind, size, which recent access its address is
// near) and the address's distance from there; small written values are
// varints. Encoder and decoder state resets at each chunk start: any
// chunk decodes on its own.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/effect_visitor.h"
#include "engine/byte_codec.h"
#include "engine/step_pc_memo.h"
#include "engine/step_stream_source.h"
#include "state/byte_order.h"  // load_le
#include "formats/common/trace_sink.h"
#include "state/arch.h"

namespace ttd {

class StateApplier;
struct ThreadSlot;

// An attribute is var(key << 3 | type) then its value. Unsigned integers
// are usually close to the same key's previous value in the chunk (XRay's
// tsc, function ids, cpu), so they are stored as "same" or as a signed
// difference when that is shorter. Keys below kMaxDeltaAttrKeys only: a
// decoder keeps that much history per chunk at most.
enum : uint8_t { kAttrU64 = 0, kAttrI64 = 1, kAttrStr = 2, kAttrList = 3, kAttrU64Same = 4, kAttrU64Delta = 5 };
constexpr uint32_t kAttrTypeBits = 3;
constexpr uint64_t kAttrTypeMask = (1u << kAttrTypeBits) - 1;
constexpr uint32_t kMaxDeltaAttrKeys = 256;

// Step header byte: what the step shares with the one before it or with
// the prediction (StepPcMemo), and which blocks follow. A pc that is not
// as predicted is stored as its zigzag distance from where the previous
// step ended.
enum : uint8_t {
  kStepSameThread = 1,
  kStepFallThroughPc = 2,  // the pc is as predicted
  kStepSameSize = 4,       // the size is as predicted
  kStepInstruction = 8,
  kStepHasAttrs = 16,
  kStepHasEffects = 32,
};
// Bits 6-7 of the header: 1 to 3 register effects in the short form
// (kRegTag) and nothing else, stored without the effects length byte
// (the most common step: an x86 instruction writing a register and the
// flags). Then kStepHasEffects is clear.
constexpr uint32_t kStepShortRegsShift = 6;
constexpr uint32_t kStepMaxShortRegs = 3;

// An effect starts with a tag byte: below kAccessTag one of these, from
// kAccessTag a memory access, from kRegTag a register.
enum class EffectTag : uint8_t {
  Reg = 1,  // any register: var number, then a delta (<= 8 bytes) or the value
  RegUnknown = 2,
  // 3, 4 and 5 were memory accesses before index version 6.
  MemMap = 6,
  MemUnmap = 7,
  MemProt = 8,
  ThreadBegin = 9,
  ThreadEnd = 10,
  CtxThread = 11,  // following register effects apply to another thread
  CtxPid = 12,     // following memory effects apply to another process
};

// kRegTag + n (n < 64): register n of at most 8 bytes, then its delta
// from the register's last value; kRegTag + kRegFromPrior + n: its delta
// from the value the register held before that (a register alternating
// between a pointer and a counter costs a byte, not seven). Registers
// 64 and up take EffectTag::Reg.
constexpr uint8_t kRegTag = 0x80;
constexpr uint8_t kRegFromPrior = 0x40;
constexpr uint16_t kShortRegs = 64;
// kAccessTag + kind * 16 + size code * 4 + slot: a memory access of that
// kind, then the zigzag distance of its address from the slot's recent
// access end (AccessEnds), then its size if the code is 0, then its data.
constexpr uint8_t kAccessTag = 0x20;
enum StepAccessKind : uint8_t {
  kAccWrite = 0,     // the bytes follow
  kAccWriteVar = 1,  // 2 to 8 bytes, their little-endian value follows as a varint
  kAccRead = 2,      // value unknown
  kAccReadData = 3,  // the bytes read follow
  kAccUnknown = 4,   // the bytes became unknown
  kAccKinds = 5,
};
constexpr uint64_t kAccessCodeSize[4] = {0, 1, 4, 8};  // size code -> size (0: a varint follows)
inline uint8_t access_size_code(uint64_t size) { return size == 8 ? 3 : size == 4 ? 2 : size == 1 ? 1 : 0; }

// Where the chunk's last accesses ended, one per slot. An access is coded
// relative to the slot nearest its address (a loop that alternates stack
// and heap keeps both near); a near access moves its slot, a far one
// replaces the slots in turn. Shared by encoder and decoder, which update
// it alike from (slot, distance).
class AccessEnds {
 public:
  static constexpr uint64_t kNear = 1u << 14;  // zigzag distances of up to two varint bytes
  void reset() {
    end_ = {};
    next_ = 0;
  }
  uint64_t end(uint32_t slot) const { return end_[slot]; }
  // The slot nearest addr; zz is the zigzag distance from it.
  uint32_t nearest(uint64_t addr, uint64_t& zz) const {
    // Two pairs compared side by side: shorter than a chain of four.
    const uint64_t d0 = zigzag(int64_t(addr - end_[0])), d1 = zigzag(int64_t(addr - end_[1]));
    const uint64_t d2 = zigzag(int64_t(addr - end_[2])), d3 = zigzag(int64_t(addr - end_[3]));
    const uint32_t a = d1 < d0 ? 1 : 0, b = d3 < d2 ? 3 : 2;
    const uint64_t da = d1 < d0 ? d1 : d0, db = d3 < d2 ? d3 : d2;
    if (db < da) return zz = db, b;
    return zz = da, a;
  }
  void update(uint32_t slot, uint64_t zz, uint64_t end) {
    if (zz < kNear) {
      end_[slot] = end;
    } else {
      end_[next_] = end;
      next_ = (next_ + 1) & 3u;
    }
  }

 private:
  std::array<uint64_t, 4> end_{};
  uint32_t next_ = 0;
};

inline size_t var_len(uint64_t v) { return v < 0x80 ? 1 : size_t(64 - std::countl_zero(v) + 6) / 7; }

// Per-chunk memory of register values, shared by encoder and decoder:
// per register its last value and, kPrior entries further, the different
// value it held before (note()).
// Tables outlive reset(): the first in_use_ belong to the chunk,
// the rest wait, allocated, to be zeroed for the next thread that needs one
// (a chunk boundary every few thousand steps would otherwise free and allocate).
class RegisterHistory {
 public:
  static constexpr size_t kPrior = 256;
  // Records x as the register's value (slot: from slot()).
  static void note(uint64_t& slot, uint64_t x) {
    if (x == slot) return;
    (&slot)[kPrior] = slot;
    slot = x;
  }
  void reset() {
    in_use_ = 0;
    last_tidx_ = ~0u;
  }
  uint64_t& slot(uint32_t tidx, uint16_t reg) {
    if (tidx == last_tidx_) [[likely]]
      return last_[reg];
    return other_slot(tidx, reg);
  }

 private:
  uint64_t& other_slot(uint32_t tidx, uint16_t reg);
  std::vector<std::pair<uint32_t, std::vector<uint64_t>>> tables_;
  size_t in_use_ = 0;
  uint32_t last_tidx_ = ~0u;  // the table used last, found without a search
  uint64_t* last_ = nullptr;
};

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

struct DecodedStep {
  uint32_t tidx = 0;
  uint64_t pc = 0;
  uint32_t size = 0;
  fmt::StepKind kind = fmt::StepKind::Instruction;
  ByteReader attrs;    // empty when the step has none
  ByteReader effects;  // empty when the step has none
};

class StepDecoder {
 public:
  StepDecoder(const ArchDesc& arch, const uint8_t* data, size_t size);
  // Starts over on another chunk's stream, exactly as a fresh decoder
  // would, keeping its tables allocated (a seek decodes a chunk after
  // another; a fresh decoder zeroes and frees ~30 KB each time). Deferred
  // registers not flushed are dropped. With `more`, [data, data + size)
  // is the part of the stream at hand and `more` gives the rest as
  // next() gets near its end.
  void reset(const uint8_t* data, size_t size, StepStreamSource* more = nullptr);
  // Seek replay (engine/cursor.cpp): from now on, writes of registers of at
  // most 8 bytes other than `immediate` (the pc, which the replay also
  // sets per step) are not handed to the visitor as they are decoded; the
  // decoder notes which registers of which threads were written, and
  // flush_registers() hands each one's last value over once. The state
  // reached is the same: the last write of a register wins, and an unknown
  // marker goes to the visitor at once and cancels the deferred writes
  // before it. Flush before reset() and before the state is read.
  void defer_registers(uint16_t immediate);
  void flush_registers(EffectVisitor& v);
  // Decodes the next step's header; false at the end or on corrupt data
  // (then ok() is false).
  bool next(DecodedStep& s);
  bool ok() const { return ok_; }
  // Seek replay (engine/cursor.cpp): applies `s` (the step next() gave
  // last) and the steps after it, `n` in all, as a replay does step by
  // step: begin_step() for a step of size 0, effects(), end_step(). After
  // each applied step the next header is read into `s`, but not after the
  // last one when `read_after_last` is false (the end of the chunk).
  // `done` counts the steps applied and keeps the last one's thread. False
  // on corrupt data (a bad step, or a thread index not below slots.size()).
  struct ReplayDone {
    uint64_t steps = 0;
    uint32_t last_tidx = 0;
  };
  bool replay(DecodedStep& s, uint64_t n, bool read_after_last, StateApplier& a,
              const std::vector<ThreadSlot>& slots, ReplayDone& done);
  // Decodes a step's effects (must be called for every step, in order,
  // when register values are needed: register deltas depend on history).
  // Memory bytes handed to v stay valid as long as this decoder and its
  // input do.
  bool effects(const DecodedStep& s, EffectVisitor& v, uint64_t step_pid);
  // Decodes the attributes of the step last returned by next() into
  // (key id, value) pairs. Unsigned values may be stored relative to the
  // chunk's earlier steps; next() keeps that history, so skipping attrs()
  // for some steps is fine.
  bool attrs(const DecodedStep& s, std::vector<std::pair<uint32_t, fmt::AttrValue>>& out) const;

 private:
  const ArchDesc* arch_;
  ByteReader in_;
  // Bit n: register n (below kShortRegs) exists and has at most 8 bytes,
  // as a short register effect needs (one test per effect, not two loads).
  uint64_t short_regs_ok_ = 0;
  // A stream given in part (reset's `more`): next() asks for more bytes
  // once it is within kRefillSlack bytes of the end at hand (past
  // refill_at_; UINTPTR_MAX when the whole stream is there), so a step's
  // header and short register effects are always whole; a longer effects
  // or attributes block asks for its own length.
  static constexpr size_t kRefillSlack = 256;
  StepStreamSource* more_ = nullptr;
  const uint8_t* base_ = nullptr;
  uintptr_t refill_at_ = UINTPTR_MAX;
  bool refill(size_t need);
  void note_available(size_t avail);
  // next()'s body, inlined into replay() (a call of next() from there is
  // not: the engine library is position-independent, so GCC keeps it
  // interposable).
  [[gnu::always_inline]] inline bool next_step(DecodedStep& s);
  bool resolve_u64_attrs(ByteReader r);
  // effects() and its parts for any visitor: EffectVisitor (virtual calls)
  // or StateApplier (final: the replay's calls inline). In step_codec.cpp.
  template <class V>
  bool effects_of(const DecodedStep& s, V& v, uint64_t step_pid);
  template <class V>
  void reg_delta(ByteReader& r, uint32_t tidx, uint16_t reg, V& v, bool from_prior = false);
  template <class V>
  bool access(uint8_t tag, ByteReader& r, V& v, uint64_t pid);
  // Room for the bytes of a value stored as a varint, never moved (blocks
  // are added, not grown), so pointers handed out stay valid.
  uint8_t* value_room(size_t n);

  // Registers written since the last flush, per thread (defer_registers).
  uint64_t* deferred_mask(uint32_t tidx) {
    if (tidx == deferred_tidx_) [[likely]]
      return deferred_[deferred_at_].second.data();
    return other_deferred_mask(tidx);
  }
  uint64_t* other_deferred_mask(uint32_t tidx);

  RegisterHistory history_;
  AccessEnds ends_;
  StepPcMemo memo_;
  bool defer_ = false;
  uint16_t immediate_reg_ = 0;
  std::vector<std::pair<uint32_t, std::array<uint64_t, 4>>> deferred_;
  size_t deferred_at_ = 0;
  uint32_t deferred_tidx_ = ~0u;  // deferred_[deferred_at_]'s thread, found without a search
  std::vector<std::unique_ptr<uint8_t[]>> value_blocks_;
  size_t value_used_ = 0;
  std::array<uint64_t, kMaxDeltaAttrKeys> attr_last_{};  // per attribute key: its last unsigned value
  std::vector<uint64_t> step_u64_;   // the unsigned attribute values of the current step
  bool ok_ = true;
  uint32_t prev_tidx_ = 0;
  uint64_t prev_next_pc_ = 0;
  uint32_t prev_size_ = 0;
  uint64_t prev_addr_ = 0;
};

}  // namespace ttd
