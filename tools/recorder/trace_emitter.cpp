#include "tools/recorder/trace_emitter.h"

#include <algorithm>

#include "state/byte_order.h"

namespace ttd::rec {

namespace {
constexpr uint64_t kRunLimit = 1 << 20;  // bytes per keyframe memory write
}

void TraceEmitter::keyframe(const RegisterTracker& regs) {
  w_->begin_keyframe();
  // Every register the emulator can tell, zeros included: a register left
  // out stays unknown until it changes (fstat and st1-st7 used to read
  // <unavailable> after fsave/frstor because they were zero at the start).
  for (size_t s = 0; s < regs.regs().size(); ++s) reg(regs.regs()[s].index, regs.shadow(s));
  std::vector<uint8_t> page(mem_.page_size());
  for (const auto& [start, r] : mem_.regions().all()) {
    w_->mem_map(start, r.size, r.prot, r.name);
    if (mirror_) mirror_->mem_map(start, r.size);
    // Mappings start zero-filled: write only the runs of non-zero pages.
    std::vector<uint8_t> run;
    uint64_t run_start = 0;
    auto flush_run = [&] {
      if (!run.empty()) write_memory(run_start, run);
      run.clear();
    };
    for (uint64_t a = start; a < start + r.size; a += page.size()) {
      if (!mem_.read(a, page)) continue;
      bool zero = std::all_of(page.begin(), page.end(), [](uint8_t b) { return b == 0; });
      if (zero || run.size() >= kRunLimit) flush_run();
      if (zero) continue;
      if (run.empty()) run_start = a;
      run.insert(run.end(), page.begin(), page.end());
    }
    flush_run();
  }
  w_->end_keyframe();
}

void TraceEmitter::thread_keyframe(uint32_t number, uint64_t pc, const RegisterTracker& regs,
                                   std::span<const uint8_t> shadow) {
  w_->begin_thread_keyframe(number);
  w_->jmp(pc, 0);
  if (mirror_) mirror_->select_thread(number);
  for (size_t s = 0; s < regs.regs().size(); ++s) reg(regs.regs()[s].index, regs.slot_bytes(shadow, s));
  if (mirror_) mirror_->select_thread(thread_);
  w_->end_keyframe();
}

void TraceEmitter::flush_slow() {
  for (uint32_t i = 0; i < count_; ++i) {
    const Access& a = i < kInline ? pending_[i] : overflow_[i - kInline];
    if (!a.write) {
      w_->mem_read_inline(a.addr, a.size);
      continue;
    }
    uint8_t bytes[64];
    uint32_t n = std::min<uint32_t>(a.size, sizeof bytes);
    if (n <= 8) {
      // The hook's value holds the bytes written, little-endian.
      store_le64(bytes, a.value);
      if (mirror_) mirror_->mem_write(a.addr, {bytes, n});
      w_->mem_write_inline(a.addr, bytes, n);
      continue;
    }
    // Wider than the hook's value: the instruction has completed, so
    // memory holds what it wrote.
    mem_.read(a.addr, {bytes, n});
    write_memory(a.addr, {bytes, n});
  }
  drop_accesses();
}

void TraceEmitter::kernel_effects(const std::vector<KernelEffect>& effects) {
  for (const KernelEffect& e : effects) {
    switch (e.kind) {
      case KernelEffect::Kind::MemWrite: write_memory(e.addr, e.bytes); break;
      case KernelEffect::Kind::Map:
        w_->mem_map(e.addr, e.size, e.prot, e.name);
        if (mirror_) mirror_->mem_map(e.addr, e.size);
        break;
      case KernelEffect::Kind::Unmap:
        w_->mem_unmap(e.addr, e.size);
        if (mirror_) mirror_->mem_unmap(e.addr, e.size);
        break;
      case KernelEffect::Kind::Protect: w_->mem_protect(e.addr, e.size, e.prot); break;
    }
  }
}

}  // namespace ttd::rec
