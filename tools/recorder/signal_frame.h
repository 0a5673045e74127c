// The frames Linux builds on the guest's stack to run a signal handler,
// and rt_sigreturn's reading of them back (arch/x86/kernel/signal.c,
// arch/arm64/kernel/signal.c). Memory goes through FrameMemory (the
// kernel's recorded writes, so the frame is in the trace as the kernel's
// effects); registers are read from and written to the emulator.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include <unicorn/unicorn.h>

#include "state/arch.h"
#include "tools/recorder/guest_signals.h"

namespace ttd::rec {

struct FrameMemory {
  std::function<bool(uint64_t addr, std::span<const uint8_t> bytes)> write;  // false: not writable
  std::function<bool(uint64_t addr, std::span<uint8_t> out)> read;            // false: not readable
};

struct FrameRequest {
  SigInfo info;
  SigAction act;
  uint64_t resume_pc = 0;  // where the interrupted code goes on (saved as the frame's pc)
  uint64_t old_mask = 0;   // the thread's mask before the handler's (saved in uc_sigmask)
  AltStack altstack;       // the thread's sigaltstack
  uint64_t restorer = 0;   // AArch64 without SA_RESTORER: the trampoline (Linux: the vDSO's)
  // x86-64 faults: the trap number, error code and cr2 Linux reports.
  uint64_t trapno = 0, err = 0, cr2 = 0;
};

// Builds the frame and sets the handler's registers; the handler's pc, or
// nullopt when the frame cannot be written (Linux then kills with SIGSEGV).
std::optional<uint64_t> push_signal_frame(ArchId arch, uc_engine* uc, FrameMemory& mem, const FrameRequest& req);

// rt_sigreturn: the registers (and FP state) from the frame at the stack
// pointer, as the handler may have changed them; the pc to go on at, the
// mask and the alternate stack the frame holds. nullopt: a bad frame.
struct FrameRestore {
  uint64_t pc = 0, mask = 0;
  AltStack altstack;
};
std::optional<FrameRestore> pop_signal_frame(ArchId arch, uc_engine* uc, FrameMemory& mem);

namespace frame_detail {
std::optional<uint64_t> push_x86_64(uc_engine* uc, FrameMemory& mem, const FrameRequest& req);
std::optional<FrameRestore> pop_x86_64(uc_engine* uc, FrameMemory& mem);
std::optional<uint64_t> push_aarch64(uc_engine* uc, FrameMemory& mem, const FrameRequest& req);
std::optional<FrameRestore> pop_aarch64(uc_engine* uc, FrameMemory& mem);

// Little-endian field access in a frame image.
template <class T>
void put(std::span<uint8_t> b, size_t off, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) b[off + i] = uint8_t(uint64_t(v) >> (8 * i));
}
template <class T>
T get(std::span<const uint8_t> b, size_t off) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= uint64_t(b[off + i]) << (8 * i);
  return T(v);
}
// uc_stack as the kernel saves it: the alternate stack, and whether `sp`
// is on it (SS_ONSTACK) or it is disabled (SS_DISABLE).
inline int32_t altstack_flags(const AltStack& a, uint64_t sp) {
  if (a.flags == AltStack::kDisable) return AltStack::kDisable;
  return a.contains(sp) ? AltStack::kOnStack : 0;
}
}  // namespace frame_detail

}  // namespace ttd::rec
