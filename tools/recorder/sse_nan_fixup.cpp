#include "tools/recorder/sse_nan_fixup.h"

#include <cstring>

namespace ttd::rec {

namespace {

int xmm_number(x86_reg r) {
  if (r >= X86_REG_XMM0 && r <= X86_REG_XMM15) return int(r - X86_REG_XMM0);
  return -1;
}

template <class T>
bool is_nan(T bits) {
  constexpr int kMant = sizeof(T) == 4 ? 23 : 52;
  constexpr T kExp = sizeof(T) == 4 ? T(0xff) : T(0x7ff);
  return ((bits >> kMant) & kExp) == kExp && (bits & ((T(1) << kMant) - 1)) != 0;
}

// Lanes of width T, `lanes` of them from the bottom: where both inputs are
// NaN the result is the destination's NaN with the quiet bit set.
template <class T>
bool fix_lanes(const uint8_t* dst, const uint8_t* src, uint8_t* result, int lanes) {
  constexpr T kQuiet = T(1) << (sizeof(T) == 4 ? 22 : 51);
  bool changed = false;
  for (int i = 0; i < lanes; ++i) {
    T a, b, r;
    std::memcpy(&a, dst + i * sizeof(T), sizeof(T));
    std::memcpy(&b, src + i * sizeof(T), sizeof(T));
    std::memcpy(&r, result + i * sizeof(T), sizeof(T));
    if (!is_nan(a) || !is_nan(b)) continue;
    T want = a | kQuiet;
    if (r == want) continue;
    std::memcpy(result + i * sizeof(T), &want, sizeof(T));
    changed = true;
  }
  return changed;
}

}  // namespace

SseNanOp classify_sse_nan(const cs_insn& insn) {
  SseNanOp op;
  using K = SseNanOp::Kind;
  switch (insn.id) {
    case X86_INS_ADDPS: case X86_INS_SUBPS: case X86_INS_MULPS: case X86_INS_DIVPS: op.kind = K::Packed32; break;
    case X86_INS_ADDSS: case X86_INS_SUBSS: case X86_INS_MULSS: case X86_INS_DIVSS: op.kind = K::Scalar32; break;
    case X86_INS_ADDPD: case X86_INS_SUBPD: case X86_INS_MULPD: case X86_INS_DIVPD: op.kind = K::Packed64; break;
    case X86_INS_ADDSD: case X86_INS_SUBSD: case X86_INS_MULSD: case X86_INS_DIVSD: op.kind = K::Scalar64; break;
    default: return op;
  }
  const cs_x86* x = insn.detail ? &insn.detail->x86 : nullptr;
  // The legacy two-operand SSE forms only (xmm, xmm/mem); VEX forms are not
  // emulated by Unicorn 2.0.1 anyway.
  if (!x || x->op_count != 2 || x->operands[0].type != X86_OP_REG) return SseNanOp{};
  int dst = xmm_number(x->operands[0].reg);
  if (dst < 0) return SseNanOp{};
  op.dst = uint8_t(dst);
  if (x->operands[1].type == X86_OP_REG) {
    int src = xmm_number(x->operands[1].reg);
    if (src < 0) return SseNanOp{};
    op.src = int8_t(src);
  } else if (x->operands[1].type != X86_OP_MEM) {
    return SseNanOp{};
  }
  return op;
}

void SseNanFixup::before(uc_engine* uc, const SseNanOp& op) {
  have_src_addr_ = false;
  uc_reg_read(uc, UC_X86_REG_XMM0 + op.dst, dst_);
  if (op.src >= 0) uc_reg_read(uc, UC_X86_REG_XMM0 + op.src, src_);
}

bool SseNanFixup::after(uc_engine* uc, const SseNanOp& op) {
  using K = SseNanOp::Kind;
  bool scalar = op.kind == K::Scalar32 || op.kind == K::Scalar64;
  bool wide = op.kind == K::Packed64 || op.kind == K::Scalar64;
  if (op.src < 0) {
    // The operand is still in memory (these instructions only write the
    // register): read it where the instruction read it.
    if (!have_src_addr_) return false;
    size_t n = scalar ? (wide ? 8 : 4) : 16;
    if (uc_mem_read(uc, src_addr_, src_, n) != UC_ERR_OK) return false;
  }
  alignas(16) uint8_t result[16];
  uc_reg_read(uc, UC_X86_REG_XMM0 + op.dst, result);
  int lanes = scalar ? 1 : (wide ? 2 : 4);
  bool changed = wide ? fix_lanes<uint64_t>(dst_, src_, result, lanes) : fix_lanes<uint32_t>(dst_, src_, result, lanes);
  if (changed) uc_reg_write(uc, UC_X86_REG_XMM0 + op.dst, result);
  return changed;
}

}  // namespace ttd::rec
