#include "tools/recorder/memory_operand.h"

namespace ttd::rec {

namespace {

// Capstone's 64-bit general register to Unicorn's id; 0 if it is not one.
int unicorn_gpr(x86_reg r) {
  switch (r) {
    case X86_REG_RAX: return UC_X86_REG_RAX;
    case X86_REG_RCX: return UC_X86_REG_RCX;
    case X86_REG_RDX: return UC_X86_REG_RDX;
    case X86_REG_RBX: return UC_X86_REG_RBX;
    case X86_REG_RSP: return UC_X86_REG_RSP;
    case X86_REG_RBP: return UC_X86_REG_RBP;
    case X86_REG_RSI: return UC_X86_REG_RSI;
    case X86_REG_RDI: return UC_X86_REG_RDI;
    case X86_REG_R8: return UC_X86_REG_R8;
    case X86_REG_R9: return UC_X86_REG_R9;
    case X86_REG_R10: return UC_X86_REG_R10;
    case X86_REG_R11: return UC_X86_REG_R11;
    case X86_REG_R12: return UC_X86_REG_R12;
    case X86_REG_R13: return UC_X86_REG_R13;
    case X86_REG_R14: return UC_X86_REG_R14;
    case X86_REG_R15: return UC_X86_REG_R15;
    default: return 0;
  }
}

uint64_t reg(uc_engine* uc, int id) {
  uint64_t v = 0;
  uc_reg_read(uc, id, &v);
  return v;
}

}  // namespace

MemoryOperand memory_operand(const cs_insn& insn) {
  MemoryOperand m;
  if (!insn.detail) return m;
  const cs_x86& x = insn.detail->x86;
  for (uint8_t i = 0; i < x.op_count; ++i) {
    if (x.operands[i].type != X86_OP_MEM) continue;
    const x86_op_mem& mem = x.operands[i].mem;
    if (mem.segment == X86_REG_FS) m.segment_base = UC_X86_REG_FS_BASE;
    else if (mem.segment == X86_REG_GS) m.segment_base = UC_X86_REG_GS_BASE;
    else if (mem.segment != X86_REG_INVALID && mem.segment != X86_REG_DS && mem.segment != X86_REG_SS &&
             mem.segment != X86_REG_ES && mem.segment != X86_REG_CS)
      return m;
    if (mem.base == X86_REG_RIP) {
      m.rip_relative = true;
    } else if (mem.base != X86_REG_INVALID && !(m.base = unicorn_gpr(mem.base))) {
      return m;
    }
    if (mem.index != X86_REG_INVALID && !(m.index = unicorn_gpr(mem.index))) return m;
    m.scale = uint8_t(mem.scale);
    m.disp = mem.disp;
    m.valid = true;
    return m;
  }
  return m;
}

uint64_t effective_address(uc_engine* uc, const MemoryOperand& m, uint64_t next_pc) {
  uint64_t a = uint64_t(m.disp);
  if (m.segment_base) a += reg(uc, m.segment_base);
  if (m.rip_relative) a += next_pc;
  if (m.base) a += reg(uc, m.base);
  if (m.index) a += reg(uc, m.index) * m.scale;
  return a;
}

}  // namespace ttd::rec
