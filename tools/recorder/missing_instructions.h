// x86-64 instructions that Unicorn 2.0.1 calls invalid (UC_ERR_INSN_INVALID)
// although the CPUs of its time run them, and that programs use without
// asking CPUID: POPCNT (every program built for x86-64-v2, the baseline of
// RHEL 9 and of `-march=nehalem` and later, or with `-mpopcnt`), MOVBE
// (`-mmovbe`, `-march=atom`/`silvermont`), PCLMULQDQ (`-mpclmul`, CRC and
// GCM code built for them) and RDRAND/RDSEED (`-mrdrnd`,
// `-mrdseed`). Under Unicorn alone such a program dies of SIGILL at the
// first one. CPUID still does not report them (cpuid_fixup.h), so programs
// that ask first keep the paths they take today. PDEP and PEXT (BMI2,
// which CPUID reports) Unicorn 2.0.1 runs but computes wrong. The
// recorder's code hook runs all of these here, on the emulator's registers
// and the guest's memory, before Unicorn sees them, and resumes after
// them; each costs an exit from and a restart of the emulator
// (microseconds). AVX, AVX2, AVX-512, FMA, F16C and XOP instructions,
// which CPUID does not report and Unicorn 2.0.1 runs wrong (`vpaddd %xmm2,
// %xmm1, %xmm0` ignores xmm1), raise SIGILL there, as on a CPU without
// them. own_run() says which instruction is which.
//
// Contract: run() touches nothing unless the instruction at pc is one of
// these; then it either completes it (registers, EFLAGS, memory written)
// or, when its memory operand is not accessible or not aligned as the CPU
// wants it, changes nothing and says where it faulted.
#pragma once
#include <cstdint>
#include <optional>

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "state/error.h"
#include "tools/recorder/guest_memory.h"

namespace ttd::rec {

// What the recorder does with an instruction instead of letting Unicorn
// run it, decided once per pc from Capstone's decode.
enum class OwnRun : uint8_t {
  No,
  Run,     // POPCNT, MOVBE, PDEP, PEXT, PCLMULQDQ, RDRAND, RDSEED: MissingInstructions::run, then on after it
  NoAvx,   // an AVX-family instruction: SIGILL, as on a CPU without AVX
  CheckAlignment,  // Unicorn runs it if its memory operand is 16-byte aligned; else SIGSEGV (sse_alignment.h)
};
OwnRun own_run(const cs_insn& insn);

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
    // Set when a 16-byte operand that must be aligned is not (#GP, the
    // CPU's SIGSEGV with SI_KERNEL): nothing was changed.
    std::optional<uint64_t> misaligned_at;
  };
  // nullopt if the instruction at pc is not one of these.
  std::optional<Outcome> run(uc_engine* uc, GuestMemory& mem, uint64_t pc);

 private:
  std::optional<Outcome> run_bit_scatter(uc_engine* uc, GuestMemory& mem, const cs_insn& insn);
  std::optional<Outcome> run_carry_less(uc_engine* uc, GuestMemory& mem, const cs_insn& insn);
  static std::optional<Outcome> run_random(uc_engine* uc, const cs_insn& insn);
  // Reads a memory operand into value; false (out.fault set) if it faults.
  static bool read_operand(const GuestMemory& mem, uint64_t addr, uint32_t size, Outcome& out, uint64_t& value);
  csh cs_ = 0;
  bool opened_ = false;
};

}  // namespace ttd::rec
