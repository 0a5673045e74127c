// A Tenet tracer built on Unicorn, working the way Tenet's own tracers do
// (pin/pintenet.cpp, qemu/tenet.c): a hook before every instruction writes
// the register changes, the instruction's address and the memory the
// previous instruction accessed (bytes read from memory now). It also keeps
// what the emulator had at each of those hooks, for tests to compare with.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "formats/tenet/testing/tenet_writer.h"
#include "state/arch.h"

namespace ttd::test {

struct EmulatorRegion {
  uint64_t base = 0;
  std::vector<uint8_t> init;  // initial contents (zero-filled to size)
  uint64_t size = 0x1000;
};

struct TracerSetup {
  ArchId arch = ArchId::X86_64;
  uint64_t code_base = 0;
  std::vector<uint8_t> code;
  uint64_t until = 0;  // stop before executing this address
  std::vector<EmulatorRegion> data;  // regions snapshotted at every step
  std::vector<std::pair<std::string, uint64_t>> initial_regs;  // by arch register name
  fmt::tenet::TenetStyle style;
  bool merge_read_write = false;  // same-address read + write -> one mrw entry
};

struct EmulatorSnapshot {
  uint64_t pc = 0;
  std::vector<uint64_t> regs;                // Tenet's register set, in its order
  std::vector<std::vector<uint8_t>> memory;  // one per TracerSetup::data region
};

struct TouchedRange {
  uint64_t instruction;  // index of the instruction that touched it
  uint64_t addr;
  uint32_t size;
};

struct TracerRun {
  std::string trace;                      // the Tenet text
  std::vector<EmulatorSnapshot> at_step;  // at_step[n]: before instruction n
  std::vector<TouchedRange> touched;
  std::vector<std::string> register_names;  // Tenet's set without the ip
};

// Runs the code and returns the trace and the snapshots; REQUIREs success.
TracerRun run_unicorn_tenet_tracer(const TracerSetup& setup);

}  // namespace ttd::test
