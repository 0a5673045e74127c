// Call-frame information for the motion program's functions (main, f, g),
// as a .debug_frame section (DWARF 5 spec, 6.4 "Call Frame Information";
// CIE version 1, 32-bit lengths, absolute addresses). lldb and gdb unwind
// with it: which frame a step landed in, where a call returns to.
//
// The functions keep no frame: a call pushes the return address (x86-64)
// or puts it in x30 (aarch64) and nothing else touches the stack, so one
// rule holds at every instruction of every function and the FDEs carry no
// instructions of their own:
//   x86-64:  CFA = rsp + 8, return address at CFA - 8
//   aarch64: CFA = sp,      return address in x30 (same value)
// main is entered, not called: its return address reads as 0 (x86-64: the
// zeroed stack; aarch64: x30 = 0), where unwinders stop.
//
// ppc32 gets none (empty result): UCIR carries no PowerPC registers, so
// there is no r1 / lr to unwind with and the cross-check does not step
// over or out of calls there.
#pragma once
#include <cstdint>
#include <vector>

#include "motion_program.h"

namespace ttd::test {

struct FunctionRange {
  uint64_t start = 0, size = 0;
};

// The .debug_frame bytes (little-endian) for `functions`: one CIE, one FDE
// each. Empty for an architecture without a rule here (ppc32).
std::vector<uint8_t> motion_debug_frame(ArchId arch, const std::vector<FunctionRange>& functions);

}  // namespace ttd::test
