// Runs the checked-in PowerPC guest (guest/guest.c + guest/start.S) under
// Unicorn's PPC32 (big-endian, a G4 with AltiVec), one instruction at a
// time, and writes the TT6, TT6E and FULL traces Amber would have written
// of that execution - alongside everything the emulator itself saw, so the
// tests can hold the readers' output against it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "formats/tt6/tt6_layout.h"

namespace ttd::test {

// A memory access reported by Unicorn's memory hooks. (Unicorn 2.0.1
// reports no hook for accesses its helpers make: lmw/stmw, the string
// instructions, dcbz.)
struct HookedAccess {
  bool write = false;
  uint32_t addr = 0;
  uint32_t size = 0;
};

struct TracedStep {
  uint32_t pc = 0, opcode = 0, next_pc = 0;
  fmt::tt6::PpcUserState before;  // every register before the instruction (live values)
  std::vector<HookedAccess> hooked;
  bool trapped = false;  // a trap word that took its trap
  bool syscall = false;  // sc
};

// A synchronisation escape the tracer wrote (TT6/TT6E) before step `before_step`.
struct TracedSync {
  size_t before_step = 0;
  uint32_t type = 0, sync_point = 0, count = 0;
};

// The guest's memory (image, data, bss and stack) at every step boundary,
// stored as versions taken when it changed.
class MemoryTimeline {
 public:
  uint32_t base() const { return base_; }
  uint32_t size() const { return size_; }
  void set_range(uint32_t base, uint32_t size) { base_ = base, size_ = size; }
  void note(size_t step, std::vector<uint8_t> bytes);
  // Memory before step n (n == steps: after the last one).
  const std::vector<uint8_t>& before(size_t step) const;
  bool contains(uint64_t addr, uint64_t len) const { return addr >= base_ && addr + len <= uint64_t(base_) + size_; }

 private:
  uint32_t base_ = 0, size_ = 0;
  std::vector<std::pair<size_t, std::vector<uint8_t>>> versions_;
};

struct GuestRun {
  std::string error;  // empty when the run went to the end
  std::vector<TracedStep> steps;
  std::vector<TracedSync> syncs;
  MemoryTimeline memory;
  uint32_t tail_begin = 0, tail_end = 0;  // start.S after guest_main returns, up to guest_end
  uint32_t scratch = 0;                   // start.S's scratch buffer
  std::vector<uint8_t> tt6, tt6e, full;  // the traces
};

GuestRun run_ppc_guest();

}  // namespace ttd::test
