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

}  // namespace

UndefinedFlags::UndefinedFlags() {
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs_) == CS_ERR_OK) cs_option(cs_, CS_OPT_DETAIL, CS_OPT_ON);
  else cs_ = 0;
}

UndefinedFlags::~UndefinedFlags() {
  if (cs_) cs_close(&cs_);
}

void UndefinedFlags::after(uint64_t pc, std::span<const uint8_t> code) {
  if (!cs_) return;
  cs_insn* insn = nullptr;
  if (cs_disasm(cs_, code.data(), code.size(), pc, 1, &insn) != 1) return;
  uint64_t e = insn->detail ? insn->detail->x86.eflags : 0;
  cs_free(insn, 1);
  for (const FlagRule& r : kRules) {
    if (e & r.undefined) undefined_ |= r.bit;
    else if (e & r.defined) undefined_ &= ~r.bit;
  }
}

}  // namespace ttd::fidelity
