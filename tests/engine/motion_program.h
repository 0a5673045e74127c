// A small program with real call / return encodings for the motion suite,
// run as a step stream on x86-64, aarch64 or ppc32, one or two threads:
//
//   main: m0 nop, m1 call f, m2 nop (16-byte write), m3 call g,
//         m4 nop (two 4-byte writes side by side), m5 jump m0
//   f:    f0 nop (write of 1, 2, 4 or 8 bytes), f1 nop (read), f2 return
//   g:    g0 nop, g1 call f, g2 nop (3-byte write), g3 return
//
// Access addresses and values come from a seed. The generator knows, for
// every step, the depth of the frame that runs it and the thread's depth
// after it, and the memory contents before it: the brute-force oracles of
// the suite are built from these, not from the engine.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "synthetic_trace.h"

namespace ttd::test {

constexpr uint64_t kMotionCode = 0x400000;  // main; f at +0x100, g at +0x200
constexpr uint64_t kMotionData = 0x10000;   // 0x1000 bytes of data, accessed in the first 0x50

struct MotionAccess {
  uint64_t addr = 0, size = 0;
  bool write = false;
  std::vector<uint8_t> value;  // writes
};

struct MotionStep {
  uint64_t tid = 0, pc = 0;
  int depth = 0;        // of the frame running this step (main = 0)
  int depth_after = 0;  // the thread's depth once it has run
  bool call = false, ret = false;
  std::vector<MotionAccess> accesses;
};

struct MotionProgram {
  ArchId arch = ArchId::X86_64;
  std::vector<uint8_t> code;  // the bytes at kMotionCode
  std::vector<MotionStep> steps;
  std::shared_ptr<SynthTrace> synth;
  // The data bytes before step e runs (memory starts zero-filled).
  std::vector<uint8_t> data_before(uint64_t e, uint64_t addr, uint64_t len) const;
};

// code_in_trace = false leaves the code region out of the trace (as TT6
// does): the classifier then needs the program's ELF.
MotionProgram make_motion_program(ArchId arch, uint32_t threads, uint64_t iterations, uint64_t seed,
                                  bool code_in_trace = true);

// A static ELF (ELF32 big-endian for ppc32, ELF64 little-endian otherwise)
// with the program's code as one PT_LOAD segment at kMotionCode.
void write_motion_elf(const MotionProgram& p, const std::string& path);

}  // namespace ttd::test
