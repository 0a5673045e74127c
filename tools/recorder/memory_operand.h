// Where an x86-64 instruction's memory operand is, from Capstone's decode
// and the registers before it runs: segment base (fs/gs) + base + index *
// scale + displacement, rip-relative from the next instruction.
//
// For a fork child that is not recorded (no memory hooks there), so that
// the host evaluation of floating point (host_fp_eval.h) finds its
// operand. 64-bit addressing only; anything else is not valid. Also the
// general registers' numbering, shared with sse_host_eval.cpp.
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

// General register number 0-15 (rax, rcx, ... r15) of Capstone's 64-bit
// name, or also of its 32-bit one; -1 for anything else.
int x86_gpr_number(x86_reg r, bool also_32_bit);
// Unicorn's id of general register `number` (0-15), its 64-bit name.
int x86_gpr_unicorn_id(int number);

// The instruction's first memory operand (valid false if it has none or
// addresses it in a way not handled here).
MemoryOperand memory_operand(const cs_insn& insn);

// Its address with the emulator's registers; next_pc is the address after
// the instruction.
uint64_t effective_address(uc_engine* uc, const MemoryOperand& m, uint64_t next_pc);

}  // namespace ttd::rec
