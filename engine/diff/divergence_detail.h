// Why two runs went different ways at a branch: the branch instruction
// (disassembled with Capstone from the code bytes at its pc), the
// registers it reads (flags included, Capstone's implicit operands too)
// and the memory it reads whose values differ between the runs, and, for
// a branch that reads only flags, the instruction that last set them
// (the compare) with its own differing inputs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/trace.h"

namespace ttd::diff {

struct ValueDelta {
  std::string what;                 // register name, or "[0xADDR+LEN]"
  std::optional<std::string> a, b;  // hex value in each run (nullopt: unknown there)
  // Where the value is, for its origin: a register (index into the arch's
  // table), or memory read at the same address in both runs.
  std::optional<uint16_t> reg;
  std::optional<uint64_t> mem_addr;
  uint32_t mem_len = 0;
};

struct InstructionDelta {
  uint64_t eid_a = 0, eid_b = 0;
  uint64_t pc = 0;
  std::string instruction;  // "jle 0x401136" ("" when code bytes are unknown)
  std::vector<ValueDelta> inputs;  // inputs whose values differ
};

// The branch at eid_a / eid_b (the same pc in both runs), and the flag
// setter before it when there is one within `lookback` steps of its thread.
struct BranchExplanation {
  InstructionDelta branch;
  std::optional<InstructionDelta> flags_set_by;
};

Result<BranchExplanation> explain_branch(std::shared_ptr<const Trace> a, std::shared_ptr<const Trace> b,
                                         uint64_t eid_a, uint64_t eid_b, uint64_t lookback = 4096);

}  // namespace ttd::diff
