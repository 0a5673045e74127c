// Turns what the recorder observes into UCIR ops, in the order the format
// wants: per instruction its memory accesses, then its register changes,
// then the step. Memory accesses are held until the instruction completes
// so a faulting instruction leaves nothing behind. Everything written is
// also fed to the optional TraceMirror (self-check).
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "formats/ucir/ucir_writer.h"
#include "tools/recorder/guest_memory.h"
#include "tools/recorder/linux_kernel.h"
#include "tools/recorder/register_tracker.h"
#include "tools/recorder/trace_mirror.h"

namespace ttd::rec {

class TraceEmitter {
 public:
  TraceEmitter(fmt::UcirWriter& writer, const GuestMemory& mem, TraceMirror* mirror)
      : w_(&writer), mem_(mem), mirror_(mirror) {}

  // A followed fork's child writes its own trace from here on
  // (recording_chain.cpp); the parent's writer is left as it is.
  void rebind(fmt::UcirWriter& writer) {
    w_ = &writer;
    drop_accesses();
  }

  // The starting state: every register and every mapping with its non-zero
  // pages.
  void keyframe(const RegisterTracker& regs);

  // The thread whose instructions follow (1 = the main thread).
  void set_thread(uint32_t number) {
    w_->set_thread(number);
    if (mirror_) mirror_->select_thread(number);
    thread_ = number;
  }
  // Thread `number` was just created by the current step: its starting pc
  // and every register (`shadow` in the tracker's layout).
  void thread_keyframe(uint32_t number, uint64_t pc, const RegisterTracker& regs, std::span<const uint8_t> shadow);

  void block(uint64_t addr, uint32_t size) { w_->block(addr, size); }
  void mem_read(uint64_t addr, uint32_t size) { add({addr, 0, size, false}); }
  void mem_write(uint64_t addr, uint32_t size, int64_t value) { add({addr, uint64_t(value), size, true}); }
  // The instruction faulted: its accesses never happened.
  void drop_accesses() {
    count_ = 0;
    overflow_.clear();
  }
  void flush_accesses() {
    if (count_) flush_slow();
  }
  // Bytes the recorder rewrote after the instruction ran (x87_image_fixup.h);
  // they follow its own writes.
  void corrected_memory(uint64_t addr, std::span<const uint8_t> bytes) { write_memory(addr, bytes); }
  // Inlined into the register compare: out of line, its prologue and
  // epilogue (six saved registers) cost as much as the op's encoding.
  [[gnu::always_inline]] void reg(uint16_t index, std::span<const uint8_t> value) {
    w_->reg_inline(index, value);
    if (mirror_) mirror_->reg(index, value);
  }
  void step(uint32_t size) { w_->step_inline(uint8_t(size)); }

  void begin_syscall(uint32_t number, uint64_t ret, std::span<const uint64_t> args) {
    w_->begin_syscall(number, ret, args);
  }
  void kernel_effects(const std::vector<KernelEffect>& effects);
  void end_syscall() { w_->end_syscall(); }
  void exit() { w_->exit(); }

 private:
  struct Access {
    uint64_t addr, value;
    uint32_t size;
    bool write;
  };
  // Most instructions make a handful of accesses: a fixed array, with a
  // vector for the rare long ones (fxsave, xsave ...).
  static constexpr uint32_t kInline = 32;
  void add(const Access& a) {
    if (count_ < kInline) pending_[count_] = a;
    else overflow_.push_back(a);
    ++count_;
  }
  void flush_slow();
  // At most 1 MiB per op: the split traces have always had (it was the
  // hand-over buffer's size), so the bytes of a trace stay the same.
  static constexpr size_t kMaxWriteOp = 1 << 20;
  void write_memory(uint64_t addr, std::span<const uint8_t> bytes) {
    if (mirror_) mirror_->mem_write(addr, bytes);
    while (!bytes.empty()) {
      const size_t n = std::min(bytes.size(), kMaxWriteOp);
      w_->mem_write(addr, bytes.first(n));
      addr += n;
      bytes = bytes.subspan(n);
    }
  }

  fmt::UcirWriter* w_;
  const GuestMemory& mem_;
  TraceMirror* mirror_;
  Access pending_[kInline];
  uint32_t count_ = 0;
  std::vector<Access> overflow_;
  uint32_t thread_ = 1;
};

}  // namespace ttd::rec
