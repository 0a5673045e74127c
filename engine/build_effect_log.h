// The hand-off between the two threads of an index build
// (engine/chunk_replay_thread.h): the reader thread records, in order, the
// calls it would make on the live state's StateApplier; the replay thread
// makes them. The same calls in the same order reach the same state, so
// the keyframes of a two-thread build are the one-thread build's by
// construction. In memory only, never in a file: host byte order, fixed
// widths (cheaper to write and read back than the chunk's step stream,
// whose decoding cost the replay thread as much as applying the effects).
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>

#include "engine/byte_codec.h"
#include "engine/state_apply.h"

namespace ttd {

class BuildEffectLog {
 public:
  void begin_step(uint32_t tidx, uint64_t pc, uint32_t size) {
    uint8_t* p = head(Op::BeginStep, 4 + 8 + 4);
    p = put(p, tidx);
    p = put(p, pc);
    w_.commit(put(p, size));
  }
  void position(uint32_t tidx, uint64_t pc) {
    uint8_t* p = head(Op::Position, 4 + 8);
    p = put(p, tidx);
    w_.commit(put(p, pc));
  }
  void reg(uint32_t tidx, uint16_t reg, const uint8_t* value, uint32_t len) {
    uint8_t* p = head(Op::Reg, 4 + 2 + 4 + size_t(len));
    p = put(p, tidx);
    p = put(p, reg);
    p = put(p, len);
    if (len) std::memcpy(p, value, len);
    w_.commit(p + len);
  }
  void reg_unknown(uint32_t tidx, uint16_t reg) {
    uint8_t* p = head(Op::RegUnknown, 4 + 2);
    p = put(p, tidx);
    w_.commit(put(p, reg));
  }
  // Also what a read whose value the trace gives does to the state.
  void mem_write(uint64_t pid, uint64_t addr, const uint8_t* bytes, uint64_t len) {
    uint8_t* p = head(Op::MemWrite, 8 + 8 + 8 + size_t(len));
    p = put(p, pid);
    p = put(p, addr);
    p = put(p, len);
    if (len) std::memcpy(p, bytes, size_t(len));
    w_.commit(p + len);
  }
  void mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) { range(Op::MemUnknown, pid, addr, size); }
  void mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) { range(Op::MemUnmap, pid, addr, size); }
  void mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) {
    range(Op::MemProtect, pid, addr, size);
    w_.u8(prot);
  }
  void mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) {
    range(Op::MemMap, pid, addr, size);
    w_.u8(prot);
    w_.fixed32(uint32_t(name.size()));
    w_.bytes(name.data(), name.size());
  }
  void thread_begin(uint32_t tidx) { thread_op(Op::ThreadBegin, tidx); }
  void thread_end(uint32_t tidx) { thread_op(Op::ThreadEnd, tidx); }

  bool empty() const { return w_.size() == 0; }
  // The calls recorded since the last take(), in a block of at least
  // `spare`'s capacity if one is given.
  ByteBlock take(ByteBlock spare = {}) { return w_.take(std::move(spare)); }
  size_t capacity() const { return w_.capacity(); }

  // Makes the recorded calls on `a`. False if the log is malformed (an
  // internal error: logs are only made by this class).
  static bool replay(const uint8_t* data, size_t size, StateApplier& a);

 private:
  enum class Op : uint8_t {
    BeginStep, Position, Reg, RegUnknown, MemWrite, MemUnknown, MemUnmap, MemProtect, MemMap, ThreadBegin, ThreadEnd
  };
  uint8_t* head(Op op, size_t n) {
    uint8_t* p = w_.reserve(1 + n);
    *p = uint8_t(op);
    return p + 1;
  }
  template <class T>
  static uint8_t* put(uint8_t* p, T v) {
    std::memcpy(p, &v, sizeof v);
    return p + sizeof v;
  }
  void range(Op op, uint64_t pid, uint64_t addr, uint64_t size) {
    uint8_t* p = head(op, 24);
    p = put(p, pid);
    p = put(p, addr);
    w_.commit(put(p, size));
  }
  void thread_op(Op op, uint32_t tidx) { w_.commit(put(head(op, 4), tidx)); }

  ByteWriter w_;
};

}  // namespace ttd
