#include "engine/query/instruction_class.h"

#include <capstone/capstone.h>

#include "state/byte_order.h"

namespace ttd::query {

const char* insn_class_name(InsnClass c) {
  switch (c) {
    case InsnClass::Other: return "other";
    case InsnClass::Call: return "call";
    case InsnClass::Return: return "return";
    case InsnClass::Unknown: return "unknown";
    case InsnClass::Jump: return "jump";
  }
  return "?";
}

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

// Generic: Capstone's groups (x86; the fallback elsewhere).
InsnClass by_group(const cs_insn& i) {
  if (in_group(i, CS_GRP_CALL)) return InsnClass::Call;
  if (in_group(i, CS_GRP_RET) || in_group(i, CS_GRP_IRET)) return InsnClass::Return;
  if (in_group(i, CS_GRP_JUMP)) return InsnClass::Jump;
  return InsnClass::Other;
}

InsnClass aarch64(const cs_insn& i) {
  switch (i.id) {
    case ARM64_INS_BL:
    case ARM64_INS_BLR: return InsnClass::Call;
    case ARM64_INS_RET: return InsnClass::Return;
    default: return by_group(i);
  }
}

bool arm_lists(const cs_insn& i, arm_reg r, int from) {
  const cs_arm& a = i.detail->arm;
  for (int k = from; k < a.op_count; ++k)
    if (a.operands[k].type == ARM_OP_REG && a.operands[k].reg == r) return true;
  return false;
}

InsnClass arm(const cs_insn& i) {
  if (!i.detail) return InsnClass::Other;
  const cs_arm& a = i.detail->arm;
  auto reg0 = [&](arm_reg r) { return a.op_count > 0 && a.operands[0].type == ARM_OP_REG && a.operands[0].reg == r; };
  switch (i.id) {
    case ARM_INS_BL:
    case ARM_INS_BLX: return InsnClass::Call;
    case ARM_INS_BX: return reg0(ARM_REG_LR) ? InsnClass::Return : InsnClass::Jump;
    case ARM_INS_POP: return arm_lists(i, ARM_REG_PC, 0) ? InsnClass::Return : InsnClass::Other;
    case ARM_INS_LDM:
    case ARM_INS_LDMDA:
    case ARM_INS_LDMDB:
    case ARM_INS_LDMIB:
      // ldm sp!, {..., pc} and the frame-pointer form ldmdb fp, {..., pc}.
      if (!arm_lists(i, ARM_REG_PC, 1)) return InsnClass::Other;
      return reg0(ARM_REG_SP) || reg0(ARM_REG_R11) ? InsnClass::Return : InsnClass::Jump;
    case ARM_INS_MOV:
      if (!reg0(ARM_REG_PC)) return InsnClass::Other;
      return a.op_count > 1 && a.operands[1].type == ARM_OP_REG && a.operands[1].reg == ARM_REG_LR ? InsnClass::Return
                                                                                                    : InsnClass::Jump;
    default:
      if (reg0(ARM_REG_PC)) return InsnClass::Jump;  // ldr pc, add pc, ...
      return by_group(i);
  }
}

InsnClass mips(const cs_insn& i) {
  switch (i.id) {
    case MIPS_INS_JAL:
    case MIPS_INS_JALR:
    case MIPS_INS_JALX:
    case MIPS_INS_BAL:
    case MIPS_INS_BGEZAL:
    case MIPS_INS_BLTZAL:
    case MIPS_INS_BGEZALL:
    case MIPS_INS_BLTZALL: return InsnClass::Call;
    case MIPS_INS_JR:
      if (i.detail && i.detail->mips.op_count > 0 && i.detail->mips.operands[0].type == MIPS_OP_REG &&
          i.detail->mips.operands[0].reg == MIPS_REG_RA)
        return InsnClass::Return;
      return InsnClass::Jump;
    default: return by_group(i);
  }
}

// PowerPC from the (big-endian) encoding: primary opcode 18 (b), 16 (bc)
// and 19 with extended opcode 16 (bclr) or 528 (bcctr); LK is bit 31.
InsnClass ppc(std::span<const uint8_t> code) {
  const uint32_t w = load_be32(code.data());
  uint32_t op = w >> 26, xo = (w >> 1) & 0x3ff;
  bool lk = w & 1;
  if (op == 18 || op == 16) return lk ? InsnClass::Call : InsnClass::Jump;
  if (op == 19 && xo == 16) return lk ? InsnClass::Call : InsnClass::Return;  // blrl / blr
  if (op == 19 && xo == 528) return lk ? InsnClass::Call : InsnClass::Jump;   // bctrl / bctr
  return InsnClass::Other;
}

}  // namespace

InsnClass InstructionClassifier::classify(uint64_t pc, std::span<const uint8_t> code) const {
  // PowerPC branches are fully told by the encoding, so a word Capstone 4
  // cannot decode (some AltiVec and cache-control forms) is still known
  // not to be one.
  if (arch_.id == ArchId::Ppc32) return code.size() >= 4 ? ppc(code) : InsnClass::Unknown;
  if (!open_ || code.empty()) return InsnClass::Unknown;
  cs_insn* insn = nullptr;
  size_t n = cs_disasm(csh(handle_), code.data(), code.size(), pc, 1, &insn);
  if (n == 0) return InsnClass::Unknown;
  InsnClass c = InsnClass::Other;
  switch (arch_.id) {
    case ArchId::AArch64: c = aarch64(insn[0]); break;
    case ArchId::Arm: c = arm(insn[0]); break;
    case ArchId::Mips: c = mips(insn[0]); break;
    default: c = by_group(insn[0]); break;
  }
  cs_free(insn, n);
  return c;
}

}  // namespace ttd::query
