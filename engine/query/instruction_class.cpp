#include "engine/query/instruction_class.h"

#include <capstone/capstone.h>

namespace ttd::query {

InstructionClassifier::InstructionClassifier(const ArchDesc& arch) : arch_(arch) {
  csh h = 0;
  if (cs_open(cs_arch(arch.cs_arch), cs_mode(arch.cs_mode), &h) == CS_ERR_OK) {
    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
    handle_ = h;
    open_ = true;
  }
}

InstructionClassifier::~InstructionClassifier() {
  if (open_) {
    csh h = handle_;
    cs_close(&h);
  }
}

size_t InstructionClassifier::max_insn_bytes() const { return arch_.id == ArchId::X86_64 || arch_.id == ArchId::I386 ? 15 : 4; }

namespace {

bool in_group(const cs_insn& i, uint8_t g) {
  if (!i.detail) return false;
  for (uint8_t k = 0; k < i.detail->groups_count; ++k)
    if (i.detail->groups[k] == g) return true;
  return false;
}

// Capstone 4 puts aarch64 bl/blr and the other RISC calls in the jump
// group only, so they are recognised by instruction id.
InsnClass by_id(ArchId arch, const cs_insn& i) {
  switch (arch) {
    case ArchId::AArch64:
      if (i.id == ARM64_INS_BL || i.id == ARM64_INS_BLR) return InsnClass::Call;
      if (i.id == ARM64_INS_RET) return InsnClass::Return;
      break;
    case ArchId::Arm:
      if (i.id == ARM_INS_BL || i.id == ARM_INS_BLX) return InsnClass::Call;
      // Returns are bx lr, pop {..., pc}, ldm ... pc: register branches.
      // Calling one a return candidate is safe: a return only counts when
      // its target is the return address of an open call.
      if (i.id == ARM_INS_BX || i.id == ARM_INS_POP || i.id == ARM_INS_LDM) return InsnClass::Return;
      break;
    case ArchId::Mips:
      if (i.id == MIPS_INS_JAL || i.id == MIPS_INS_JALR || i.id == MIPS_INS_BAL) return InsnClass::Call;
      if (i.id == MIPS_INS_JR) return InsnClass::Return;
      break;
    case ArchId::Ppc32:
      if (i.id == PPC_INS_BL || i.id == PPC_INS_BLA || i.id == PPC_INS_BCTRL || i.id == PPC_INS_BLRL) return InsnClass::Call;
      if (i.id == PPC_INS_BLR) return InsnClass::Return;
      break;
    default: break;
  }
  return InsnClass::Other;
}

}  // namespace

InsnClass InstructionClassifier::classify(uint64_t pc, std::span<const uint8_t> code) const {
  if (!open_ || code.empty()) return InsnClass::Unknown;
  cs_insn* insn = nullptr;
  size_t n = cs_disasm(csh(handle_), code.data(), code.size(), pc, 1, &insn);
  if (n == 0) return InsnClass::Unknown;
  InsnClass c = by_id(arch_.id, insn[0]);
  if (c == InsnClass::Other) {
    if (in_group(insn[0], CS_GRP_CALL))
      c = InsnClass::Call;
    else if (in_group(insn[0], CS_GRP_RET) || in_group(insn[0], CS_GRP_IRET))
      c = InsnClass::Return;
  }
  cs_free(insn, n);
  return c;
}

}  // namespace ttd::query
