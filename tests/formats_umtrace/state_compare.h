// Compares a reconstructed ttd::MachineState with the emulator's state at
// the same EID: every register and memory byte the reconstruction knows must
// equal the emulator's. Counts what it compared, so tests can also demand
// that the reconstruction knows enough.
#pragma once
#include <cstdint>
#include <string>

#include "state/machine_state.h"
#include "unicorn_umtrace_tracer.h"

namespace ttd::test {

struct CompareStats {
  uint64_t registers = 0, memory_bytes = 0, mismatches = 0;
  std::string first_mismatch;
};

// step_tid: the thread of the step at this EID (its pc is exact; other
// threads' pcs are the engine's "just past their last instruction").
void compare_state(const MachineState& st, const EmulatorState& emu, const UmtraceTracerSetup& setup,
                   uint64_t step_tid, uint64_t eid, CompareStats& stats);

// Whether every general-purpose register (and flags) of tid is known.
bool general_registers_known(const MachineState& st, uint64_t tid);

}  // namespace ttd::test
