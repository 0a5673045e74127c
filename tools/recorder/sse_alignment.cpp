#include "tools/recorder/sse_alignment.h"

namespace ttd::rec {

bool is_avx_family(const cs_insn& insn) {
  if (!insn.detail) return false;
  for (uint8_t g = 0; g < insn.detail->groups_count; ++g) {
    switch (insn.detail->groups[g]) {
      case X86_GRP_AVX: case X86_GRP_AVX2: case X86_GRP_AVX512: case X86_GRP_FMA: case X86_GRP_FMA4:
      case X86_GRP_F16C: case X86_GRP_XOP:
        return true;
      default: break;
    }
  }
  return false;
}

bool needs_aligned_operand(const cs_insn& insn) {
  if (!insn.detail) return false;
  switch (insn.id) {
    case X86_INS_FXSAVE: case X86_INS_FXSAVE64: case X86_INS_FXRSTOR: case X86_INS_FXRSTOR64:
    case X86_INS_CMPXCHG16B:
      return true;
    // Legacy SSE, but any address will do (Intel SDM vol. 1, 12.x and
    // the instructions' own pages).
    case X86_INS_MOVUPS: case X86_INS_MOVUPD: case X86_INS_MOVDQU: case X86_INS_LDDQU: case X86_INS_MASKMOVDQU:
    case X86_INS_PCMPESTRI: case X86_INS_PCMPESTRM: case X86_INS_PCMPISTRI: case X86_INS_PCMPISTRM:
      return false;
    // Scalar (m32, m64) although Capstone 4 sizes their operand 16 bytes.
    case X86_INS_COMISS: case X86_INS_COMISD:
      return false;
    default: break;
  }
  if (is_avx_family(insn)) return false;
  const cs_x86& x = insn.detail->x86;
  // Only SSE has 16-byte memory operands among what Unicorn runs
  // (cmpxchg16b is above).
  for (uint8_t i = 0; i < x.op_count; ++i)
    if (x.operands[i].type == X86_OP_MEM && x.operands[i].size == kSseAlignment) return true;
  return false;
}

}  // namespace ttd::rec
