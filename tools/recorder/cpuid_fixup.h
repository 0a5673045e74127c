// CPUID as the guest sees it. Unicorn 2.0's x86-64 CPU reports CPUID(1).EDX
// without FPU and MMX (0x07088100, whatever the CPU model), although it runs
// x87 and MMX code; glibc's dynamic loader then refuses libc.so.6 ("CPU ISA
// level is lower than required": the x86-64 baseline needs both). The
// It also leaves SSE3 out of leaf 1 ECX although it runs every SSE3
// instruction (haddps, movddup, lddqu, fisttp ...); Debian's numpy is built
// for an SSE3 baseline and refuses to import without it. The fix-up
// answers CPUID with Unicorn's own values plus those three bits. (Other
// features Unicorn leaves out it does not run either, so they stay out:
// POPCNT, MOVBE, PCLMULQDQ, RDRAND and RDSEED, which the recorder runs
// itself for programs that use them without asking: missing_instructions.h.
// Nor AVX: its instructions raise SIGILL there, as on a CPU without it.)
//
// Contract: install() hooks the emulator's cpuid instruction; the result
// registers change as the instruction's own effects (the trace records
// them like any register write). The object must outlive the emulation.
#pragma once
#include <unicorn/unicorn.h>

#include "state/error.h"

namespace ttd::rec {

class CpuidFixup {
 public:
  CpuidFixup() = default;
  ~CpuidFixup();
  CpuidFixup(const CpuidFixup&) = delete;
  CpuidFixup& operator=(const CpuidFixup&) = delete;

  Status install(uc_engine* uc);

  // Bits added to CPUID leaf 1: EDX FPU (0) and MMX (23), ECX SSE3 (0).
  static constexpr uint32_t kLeaf1EdxAdded = (1u << 0) | (1u << 23);
  static constexpr uint32_t kLeaf1EcxAdded = 1u << 0;

 private:
  static int on_cpuid(uc_engine* uc, void* self);
  uc_engine* scratch_ = nullptr;  // a second CPU that answers with Unicorn's values
  uc_engine* uc_ = nullptr;
  uc_hook hook_ = 0;
};

}  // namespace ttd::rec
