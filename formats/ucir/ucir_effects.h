// Parsed UCIR effects waiting to be sent to a TraceSink. The sink wants a
// step announced before its effects, but UCIR writes an instruction's
// effects before its OP_STEP, so the reader parses them into an
// EffectGroup (records plus a byte arena for data; no allocation once the
// vectors have grown) and emits the group when the step is known.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "formats/ucir/byte_buffer.h"
#include "formats/ucir/ucir_ops.h"

namespace ttd::fmt::ucir {

// Effect kinds are UCIR op codes, plus ones the reader synthesises: the
// keyframe policy's unknown memory, and ttd's thread extension
// (docs/formats/ucir.md, "Threads"): a thread keyframe becomes
// kEffectThreadBegin (addr = tid; the register effects after it are that
// thread's), its OP_JMP kEffectThreadPc (addr = the thread's pc), and
// kEffectThreadDone (register effects are the step's thread's again).
constexpr uint8_t kEffectMemUnknown = 0x80;
constexpr uint8_t kEffectThreadBegin = 0x81;
constexpr uint8_t kEffectThreadPc = 0x82;
constexpr uint8_t kEffectThreadDone = 0x83;

struct Effect {
  uint8_t op = 0;      // OP_REG, OP_SPREG, OP_MEM_*, OP_EXIT, kEffectMemUnknown
  uint8_t prot = 0;    // MEM_MAP / MEM_PROT
  uint16_t reg = 0;    // register index into the ArchDesc (REG / SPREG); MEM_MAP: 1 if the name is the backing file
  uint32_t len = 0;    // bytes in the arena: write data, SPREG value, mapping name
  uint64_t addr = 0;
  uint64_t size = 0;   // region / access size; the value for OP_REG
  uint64_t data = 0;   // arena offset of the bytes
  uint64_t file_off = 0, file_len = 0;  // MEM_MAP with a backing file: what of it the mapping holds
};

class EffectGroup {
 public:
  // OP_SYSCALL attributes of the step this group belongs to.
  bool syscall = false;
  uint32_t sys_num = 0;
  uint64_t sys_ret = 0;
  std::vector<uint64_t> sys_args;

  std::span<Effect> effects() { return {slots_.data(), count_}; }
  std::span<const Effect> effects() const { return {slots_.data(), count_}; }
  bool empty() const { return count_ == 0 && !syscall; }
  // Keeps the storage: after warm-up a group never allocates.
  void clear() {
    count_ = 0;
    used_ = 0;
    syscall = false;
    sys_args.clear();
  }
  Effect& add(uint8_t op) {
    if (count_ == slots_.size()) [[unlikely]]
      slots_.resize(slots_.empty() ? 16 : slots_.size() * 2);
    Effect& e = slots_[count_++];
    e = Effect{};
    e.op = op;
    return e;
  }
  // Copies data into the arena and points e at it.
  void attach(Effect& e, const uint8_t* p, size_t n) {
    e.data = used_;
    e.len = uint32_t(n);
    uint8_t* dst = room(n);
    if (n == 8)
      std::memcpy(dst, p, 8);  // the common write, without a library call
    else if (n)
      std::memcpy(dst, p, n);
  }
  const uint8_t* data_of(const Effect& e) const { return arena_.data() + e.data; }
  // Appends another group's effects (and its syscall attributes if this
  // group has none yet).
  void append(const EffectGroup& o) {
    const uint64_t base = used_;
    if (o.used_) std::memcpy(room(o.used_), o.arena_.data(), o.used_);
    for (const Effect& src : o.effects()) {
      Effect& e = add(src.op);
      e = src;
      e.data += base;
    }
    if (o.syscall && !syscall) {
      syscall = true;
      sys_num = o.sys_num;
      sys_ret = o.sys_ret;
      sys_args = o.sys_args;
    }
  }
  bool contains_exit() const {
    for (const Effect& e : effects())
      if (e.op == OP_EXIT) return true;
    return false;
  }

 private:
  // n more bytes at the arena's end (which may move: effects hold offsets).
  uint8_t* room(size_t n) {
    if (arena_.size() - used_ < n) [[unlikely]]
      arena_.grow(std::max<size_t>(2 * arena_.size(), used_ + n + 256), used_);
    uint8_t* p = arena_.data() + used_;
    used_ += n;
    return p;
  }

  std::vector<Effect> slots_;
  size_t count_ = 0;
  ByteBuffer arena_;  // effect data: write bytes, SPREG values, mapping names
  size_t used_ = 0;
};

}  // namespace ttd::fmt::ucir
