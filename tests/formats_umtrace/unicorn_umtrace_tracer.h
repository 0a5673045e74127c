// A UMTracer-like tracer built on Unicorn: runs x86 code instruction by
// instruction with several guest threads (register contexts swapped on one
// emulator sharing memory), and writes what it sees through UmtraceWriter
// as UMTracer would: thread-begin records with a context dump and the TEB,
// one instruction record per instruction (local context built by
// X86LocalContextBuilder from Capstone's decoding and the observed values),
// system-call entry/exit records around a small fake kernel, context
// changes, instrumentation-off gaps, thread-end and application-end
// records. It also keeps the emulator's state at every EID, for tests to
// compare the reader's reconstruction with.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "formats/umtrace/testing/umtrace_writer_types.h"
#include "state/arch.h"

namespace ttd::test {

struct GuestRegion {
  uint64_t base = 0, size = 0x1000;
  std::vector<uint8_t> init;  // initial contents (rest zero)
};

struct GuestThreadSetup {
  uint32_t win_tid = 0;
  uint64_t tib = 0;  // an address inside a region: its first 64 bytes are dumped as the TEB
  std::vector<std::pair<std::string, uint64_t>> regs;  // gdb names; must include the pc and sp
  uint64_t start_at = 0;  // global instruction count at which the thread begins
};

struct UmtraceTracerSetup {
  ArchId arch = ArchId::X86_64;
  uint64_t code_base = 0x400000;
  std::vector<uint8_t> code;
  uint64_t exit_address = 0;  // a thread ends when it reaches this pc
  std::vector<GuestRegion> regions;
  std::vector<GuestThreadSetup> threads;
  uint32_t quantum = 5;  // instructions before switching threads
  uint64_t max_instructions = 50000;
  std::vector<std::pair<uint64_t, uint64_t>> gaps;  // (global instruction index, length) run uninstrumented
  std::vector<uint64_t> context_changes;  // before these global instruction indices: an APC changes the context
  fmt::umtrace::WriterOptions options;
};

struct EmulatorState {
  std::map<uint64_t, std::vector<std::vector<uint8_t>>> regs;  // tid -> per ArchDesc register (empty: not read)
  std::vector<std::vector<uint8_t>> memory;  // per region
  std::vector<uint8_t> code;
};

struct UmtraceTracerRun {
  std::vector<EmulatorState> at_eid;  // at_eid[n]: the emulator when record n was written
  uint64_t instructions = 0, recorded_instructions = 0, syscalls = 0, context_changes = 0;
  uint64_t first_gap_eid = ~0ull;  // first record written after a gap
  std::vector<uint8_t> record_types;
};

// Runs the setup and writes the trace into dir; REQUIREs success.
UmtraceTracerRun run_umtrace_tracer(const UmtraceTracerSetup& setup, const std::string& dir);

}  // namespace ttd::test
