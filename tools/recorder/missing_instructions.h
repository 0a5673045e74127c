// x86-64 instructions that Unicorn 2.0.1 calls invalid (UC_ERR_INSN_INVALID)
// although the CPUs of its time run them, and that programs use without
// asking CPUID: POPCNT (every program built for x86-64-v2, the baseline of
// RHEL 9 and of `-march=nehalem` and later, or with `-mpopcnt`) and MOVBE
// (`-mmovbe`, `-march=atom`/`silvermont`). Under Unicorn alone such a
// program dies of SIGILL at the first one. The recorder runs them here on
// the emulator's registers and the guest's memory and resumes after them;
// each costs an exit from and a restart of the emulator (microseconds).
// CPUID still does not report them (cpuid_fixup.h), so programs that ask
// first keep the paths they take today.
//
// Contract: run() touches nothing unless the instruction at pc is one of
// these; then it either completes it (registers, EFLAGS, memory written)
// or, when its memory operand is not accessible, changes nothing and says
// where it faulted.
#pragma once
#include <cstdint>
#include <optional>

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "state/error.h"
#include "tools/recorder/guest_memory.h"

namespace ttd::rec {

class MissingInstructions {
 public:
  MissingInstructions() = default;
  ~MissingInstructions();
  MissingInstructions(const MissingInstructions&) = delete;
  MissingInstructions& operator=(const MissingInstructions&) = delete;

  struct Access {
    uint64_t addr = 0;
    uint32_t size = 0;
    bool write = false;
    uint64_t value = 0;  // a write's bytes, little-endian
  };
  struct Outcome {
    uint32_t size = 0;              // the instruction's length
    std::optional<Access> access;   // its memory operand's access, if any
    std::optional<uc_err> fault;    // set when that access faulted: nothing was changed
  };
  // nullopt if the instruction at pc is not one of these.
  std::optional<Outcome> run(uc_engine* uc, GuestMemory& mem, uint64_t pc);

 private:
  csh cs_ = 0;
  bool opened_ = false;
};

}  // namespace ttd::rec
