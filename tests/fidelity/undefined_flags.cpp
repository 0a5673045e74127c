#include "tests/fidelity/undefined_flags.h"

namespace ttd::fidelity {

namespace {

struct FlagRule {
  uint64_t bit;        // in EFLAGS
  uint64_t undefined;  // Capstone: the instruction leaves it undefined
  uint64_t defined;    // Capstone: the instruction gives it a value
};

constexpr FlagRule kRules[] = {
    {0x001, X86_EFLAGS_UNDEFINED_CF, X86_EFLAGS_MODIFY_CF | X86_EFLAGS_RESET_CF | X86_EFLAGS_SET_CF},
    {0x004, X86_EFLAGS_UNDEFINED_PF, X86_EFLAGS_MODIFY_PF | X86_EFLAGS_RESET_PF | X86_EFLAGS_SET_PF},
    {0x010, X86_EFLAGS_UNDEFINED_AF, X86_EFLAGS_MODIFY_AF | X86_EFLAGS_RESET_AF | X86_EFLAGS_SET_AF},
    {0x040, X86_EFLAGS_UNDEFINED_ZF, X86_EFLAGS_MODIFY_ZF | X86_EFLAGS_RESET_ZF | X86_EFLAGS_SET_ZF},
    {0x080, X86_EFLAGS_UNDEFINED_SF, X86_EFLAGS_MODIFY_SF | X86_EFLAGS_RESET_SF | X86_EFLAGS_SET_SF},
    {0x800, X86_EFLAGS_UNDEFINED_OF, X86_EFLAGS_MODIFY_OF | X86_EFLAGS_RESET_OF | X86_EFLAGS_SET_OF},
};

constexpr uint64_t CF = 0x1, PF = 0x4, AF = 0x10, ZF = 0x40, SF = 0x80, OF = 0x800;

// The Intel SDM's undefined flags for instructions where Capstone's table
// says "modified" instead (found by this very comparison: imul's SF on an
// AMD host). Shifts and rotates: OF is defined only for a count of 1.
uint64_t sdm_undefined(const cs_insn& insn) {
  const cs_x86& x = insn.detail->x86;
  bool count_one = x.op_count == 1 || (x.op_count == 2 && x.operands[1].type == X86_OP_IMM && x.operands[1].imm == 1);
  switch (insn.id) {
    case X86_INS_MUL: case X86_INS_IMUL: return SF | ZF | AF | PF;
    case X86_INS_DIV: case X86_INS_IDIV: return CF | PF | AF | ZF | SF | OF;
    case X86_INS_AND: case X86_INS_OR: case X86_INS_XOR: case X86_INS_TEST: return AF;
    case X86_INS_SHL: case X86_INS_SAL: case X86_INS_SHR: case X86_INS_SAR:
      return AF | (count_one ? 0 : OF);
    case X86_INS_SHLD: case X86_INS_SHRD: return AF | (count_one ? 0 : OF);
    case X86_INS_ROL: case X86_INS_ROR: case X86_INS_RCL: case X86_INS_RCR: return count_one ? 0 : OF;
    case X86_INS_BSF: case X86_INS_BSR: return CF | OF | SF | AF | PF;
    case X86_INS_BT: case X86_INS_BTS: case X86_INS_BTR: case X86_INS_BTC: return OF | SF | AF | PF;
    case X86_INS_LZCNT: case X86_INS_TZCNT: return OF | SF | PF | AF;
    default: return 0;
  }
}

}  // namespace

UndefinedFlags::UndefinedFlags() {
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs_) == CS_ERR_OK) cs_option(cs_, CS_OPT_DETAIL, CS_OPT_ON);
  else cs_ = 0;
}

UndefinedFlags::~UndefinedFlags() {
  if (cs_) cs_close(&cs_);
}

void UndefinedFlags::after(uint64_t pc, std::span<const uint8_t> code, uint64_t rcx) {
  if (!cs_) return;
  cs_insn* insn = nullptr;
  if (cs_disasm(cs_, code.data(), code.size(), pc, 1, &insn) != 1) return;
  uint64_t e = insn->detail ? insn->detail->x86.eflags : 0;
  uint64_t sdm = insn->detail ? sdm_undefined(*insn) : 0;
  if (insn->detail) {
    const cs_x86& x = insn->detail->x86;
    bool by_cl = x.op_count == 2 && x.operands[1].type == X86_OP_REG && x.operands[1].reg == X86_REG_CL;
    uint64_t mask = x.operands[0].size == 8 ? 0x3f : 0x1f;
    if (by_cl && (rcx & mask) == 0) e = sdm = 0;  // a zero count leaves every flag as it was
  }
  cs_free(insn, 1);
  for (const FlagRule& r : kRules) {
    if ((e & r.undefined) || (sdm & r.bit)) undefined_ |= r.bit;
    else if (e & r.defined) undefined_ &= ~r.bit;
  }
}

}  // namespace ttd::fidelity
