// Where an x86-64 instruction's memory operand is, from Capstone's decode
// and the registers before it runs: segment base (fs/gs) + base + index *
// scale + displacement, rip-relative from the next instruction.
//
// For a fork child that is not recorded (no memory hooks there), so that
// the host evaluation of floating point (sse_host_eval.h, x87_host_eval.h)
// finds its operand. 64-bit addressing only; anything else is not valid.
#pragma once
#include <cstdint>

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

namespace ttd::rec {

struct MemoryOperand {
  bool valid = false;
  bool rip_relative = false;
  int segment_base = 0;  // UC_X86_REG_FS_BASE / GS_BASE, or 0
  int base = 0;          // Unicorn register id, or 0
  int index = 0;         // Unicorn register id, or 0
  uint8_t scale = 1;
  int64_t disp = 0;
};

// The instruction's first memory operand (valid false if it has none or
// addresses it in a way not handled here).
MemoryOperand memory_operand(const cs_insn& insn);

// Its address with the emulator's registers; next_pc is the address after
// the instruction.
uint64_t effective_address(uc_engine* uc, const MemoryOperand& m, uint64_t next_pc);

}  // namespace ttd::rec
