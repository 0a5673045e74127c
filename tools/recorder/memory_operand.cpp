#include "tools/recorder/memory_operand.h"

namespace ttd::rec {

namespace {

constexpr x86_reg kCs64[16] = {X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX, X86_REG_RSP, X86_REG_RBP,
                               X86_REG_RSI, X86_REG_RDI, X86_REG_R8,  X86_REG_R9,  X86_REG_R10, X86_REG_R11,
                               X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15};
constexpr x86_reg kCs32[16] = {X86_REG_EAX, X86_REG_ECX, X86_REG_EDX, X86_REG_EBX, X86_REG_ESP, X86_REG_EBP,
                               X86_REG_ESI, X86_REG_EDI, X86_REG_R8D,  X86_REG_R9D,  X86_REG_R10D, X86_REG_R11D,
                               X86_REG_R12D, X86_REG_R13D, X86_REG_R14D, X86_REG_R15D};
constexpr int kUc[16] = {UC_X86_REG_RAX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RBX, UC_X86_REG_RSP, UC_X86_REG_RBP,
                         UC_X86_REG_RSI, UC_X86_REG_RDI, UC_X86_REG_R8,  UC_X86_REG_R9,  UC_X86_REG_R10, UC_X86_REG_R11,
                         UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15};

// Unicorn's id of a 64-bit general register; 0 if r is not one.
int unicorn_gpr(x86_reg r) {
  const int n = x86_gpr_number(r, false);
  return n < 0 ? 0 : x86_gpr_unicorn_id(n);
}

uint64_t reg(uc_engine* uc, int id) {
  uint64_t v = 0;
  uc_reg_read(uc, id, &v);
  return v;
}

}  // namespace

int x86_gpr_number(x86_reg r, bool also_32_bit) {
  for (int i = 0; i < 16; ++i)
    if (r == kCs64[i] || (also_32_bit && r == kCs32[i])) return i;
  return -1;
}

int x86_gpr_unicorn_id(int number) { return kUc[number]; }

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
