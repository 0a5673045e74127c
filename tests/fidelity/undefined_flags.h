// Which arithmetic flags are architecturally undefined right now: an
// instruction the manuals leave a flag undefined for (AF after shifts and
// logic ops, SF ZF AF PF after mul/imul, ...) makes it undefined until an
// instruction defines it again. CPUs differ there (AMD and Intel do), and
// Unicorn follows QEMU's choices, so the native comparison leaves those
// flags out for exactly that span. What each instruction does to each flag
// comes from Capstone's x86 eflags detail, plus the Intel SDM's undefined
// flags for the instructions where Capstone says "modified" (mul/imul,
// div, logic, shifts, rotates, bsf/bsr, bt*, lzcnt/tzcnt).
#pragma once
#include <capstone/capstone.h>

#include <cstdint>
#include <span>

namespace ttd::fidelity {

class UndefinedFlags {
 public:
  UndefinedFlags();
  ~UndefinedFlags();
  UndefinedFlags(const UndefinedFlags&) = delete;
  UndefinedFlags& operator=(const UndefinedFlags&) = delete;

  // Updates the set after the instruction `code` (at `pc`) executed, with
  // rcx as it was before it (a shift or rotate by cl = 0 changes no flag).
  void after(uint64_t pc, std::span<const uint8_t> code, uint64_t rcx);
  // EFLAGS bits (CF 0x1, PF 0x4, AF 0x10, ZF 0x40, SF 0x80, OF 0x800)
  // currently undefined.
  uint64_t mask() const { return undefined_; }

 private:
  csh cs_ = 0;
  uint64_t undefined_ = 0;
};

}  // namespace ttd::fidelity
