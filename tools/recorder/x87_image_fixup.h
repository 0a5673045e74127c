// Makes the environment image that fnsave / fnstenv store (its first 28
// bytes, 32-bit protected-mode layout) hold what this host's CPU stores.
//
// The control, status and tag words are architectural and Unicorn gets
// them right. The rest is not: the reserved upper halves of those words
// read 0xffff on real CPUs (Unicorn stores 0), and whether the last
// instruction / operand pointers (FIP FCS FOP FDP FDS) are saved depends on
// the CPU (AMD stores zeros unless an exception is pending; Unicorn stores
// its own values). The fix-up probes the host once (an fnstenv after fld1)
// and, after each such instruction, rewrites those bytes in the emulator
// and in the trace.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

namespace ttd::rec {

// fnsave / fnstenv (x86-64)?
bool stores_x87_environment(const cs_insn& insn);

class X87ImageFixup {
 public:
  X87ImageFixup();
  // While the instruction runs: its memory writes (the lowest is the image).
  void on_write(uint64_t addr) {
    if (!have_ || addr < start_) start_ = addr;
    have_ = true;
  }
  // After it ran: the corrected environment (28 bytes) written into the
  // emulator, and its address, for the trace; nullopt if nothing changed
  // or the host cannot tell (not x86-64).
  std::optional<uint64_t> after(uc_engine* uc, std::span<uint8_t, 28> image);

 private:
  bool host_known_ = false;
  bool host_saves_pointers_ = false;
  uint8_t host_env_[28] = {};
  uint64_t start_ = 0;
  bool have_ = false;
};

}  // namespace ttd::rec
