// The CPU side of the guest's threads: one emulator runs them all, so a
// thread that is not running keeps its full CPU state (every register
// Unicorn has: general, FS/GS base or TPIDR_EL0, x87, SSE/NEON, flags) in
// a Unicorn context, together with the register tracker's shadow (what the
// trace last said about its registers) and the pc it resumes at.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include <unicorn/unicorn.h>

#include "state/error.h"
#include "tools/recorder/guest_arch.h"
#include "tools/recorder/register_tracker.h"

namespace ttd::rec {

class ThreadContexts {
 public:
  ThreadContexts(uc_engine* uc, const GuestArch& guest, RegisterTracker& tracker)
      : uc_(uc), guest_(guest), tracker_(tracker) {}
  ~ThreadContexts();
  ThreadContexts(const ThreadContexts&) = delete;
  ThreadContexts& operator=(const ThreadContexts&) = delete;

  // Parks the running thread `number`: it continues at `resume_pc`.
  Status save(uint32_t number, uint64_t resume_pc);
  // Loads thread `number` into the emulator and the tracker; returns its pc.
  Result<uint64_t> load(uint32_t number);
  // The thread exited: its state is dropped.
  void drop(uint32_t number);

  // clone: thread `number` starts as a copy of the running thread (which
  // has finished its syscall) at `pc`, with the syscall result 0, sp =
  // `stack` unless 0, and the TLS base if given. The running thread's
  // state is left as it was. shadow_of() then gives the new thread's
  // registers (the tracker's layout) for its trace keyframe.
  Status create(uint32_t number, uint64_t pc, uint64_t stack, std::optional<uint64_t> tls);
  // The running CPU's stack pointer (if `stack` is not 0) and TLS base
  // (a fork's child given a new stack, as posix_spawn's clone does).
  void set_stack_and_tls(uint64_t stack, std::optional<uint64_t> tls);
  std::span<const uint8_t> shadow_of(uint32_t number) const;

 private:
  struct Parked {
    uc_context* ctx = nullptr;
    std::vector<uint8_t> shadow;
    uint64_t pc = 0;
  };
  Result<Parked*> slot(uint32_t number);

  uc_engine* uc_;
  const GuestArch& guest_;
  RegisterTracker& tracker_;
  std::map<uint32_t, Parked> parked_;
};

}  // namespace ttd::rec
