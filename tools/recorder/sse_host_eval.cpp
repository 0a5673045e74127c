#include "tools/recorder/sse_host_eval.h"

#include <cstring>

#include "tools/recorder/memory_operand.h"

namespace ttd::rec {

namespace {

int xmm_number(x86_reg r) {
  if (r >= X86_REG_XMM0 && r <= X86_REG_XMM15) return int(r - X86_REG_XMM0);
  return -1;
}

enum class Form : uint8_t { XmmXmm, XmmInt, IntXmm, Compare };

struct Mapping {
  HostFpOpcode op = HostFpOpcode::None;
  Form form = Form::XmmXmm;
  bool imm = false;
};

// Capstone's instruction to the host operation. Integer forms pick their
// 32- or 64-bit variant from the integer operand's size afterwards.
Mapping map_instruction(unsigned id) {
  using O = HostFpOpcode;
  switch (id) {
#define X(ins, o) case X86_INS_##ins: return {O::o, Form::XmmXmm, false};
    X(ADDPS, AddPs) X(ADDSS, AddSs) X(ADDPD, AddPd) X(ADDSD, AddSd)
    X(SUBPS, SubPs) X(SUBSS, SubSs) X(SUBPD, SubPd) X(SUBSD, SubSd)
    X(MULPS, MulPs) X(MULSS, MulSs) X(MULPD, MulPd) X(MULSD, MulSd)
    X(DIVPS, DivPs) X(DIVSS, DivSs) X(DIVPD, DivPd) X(DIVSD, DivSd)
    X(MINPS, MinPs) X(MINSS, MinSs) X(MINPD, MinPd) X(MINSD, MinSd)
    X(MAXPS, MaxPs) X(MAXSS, MaxSs) X(MAXPD, MaxPd) X(MAXSD, MaxSd)
    X(HADDPS, HaddPs) X(HADDPD, HaddPd) X(HSUBPS, HsubPs) X(HSUBPD, HsubPd)
    X(ADDSUBPS, AddsubPs) X(ADDSUBPD, AddsubPd)
    X(SQRTPS, SqrtPs) X(SQRTSS, SqrtSs) X(SQRTPD, SqrtPd) X(SQRTSD, SqrtSd)
    X(RCPPS, RcpPs) X(RCPSS, RcpSs) X(RSQRTPS, RsqrtPs) X(RSQRTSS, RsqrtSs)
    X(CVTSS2SD, CvtSs2Sd) X(CVTSD2SS, CvtSd2Ss) X(CVTPS2PD, CvtPs2Pd) X(CVTPD2PS, CvtPd2Ps)
    X(CVTDQ2PS, CvtDq2Ps) X(CVTPS2DQ, CvtPs2Dq) X(CVTTPS2DQ, CvttPs2Dq) X(CVTPD2DQ, CvtPd2Dq)
    X(CVTTPD2DQ, CvttPd2Dq)
#undef X
#define X(ins, o) case X86_INS_##ins: return {O::o, Form::XmmXmm, true};
    X(ROUNDPS, RoundPs) X(ROUNDSS, RoundSs) X(ROUNDPD, RoundPd) X(ROUNDSD, RoundSd)
    X(CMPSS, CmpSs) X(CMPEQSS, CmpSs) X(CMPLTSS, CmpSs) X(CMPLESS, CmpSs) X(CMPUNORDSS, CmpSs)
    X(CMPNEQSS, CmpSs) X(CMPNLTSS, CmpSs) X(CMPNLESS, CmpSs) X(CMPORDSS, CmpSs)
    X(CMPSD, CmpSd) X(CMPEQSD, CmpSd) X(CMPLTSD, CmpSd) X(CMPLESD, CmpSd) X(CMPUNORDSD, CmpSd)
    X(CMPNEQSD, CmpSd) X(CMPNLTSD, CmpSd) X(CMPNLESD, CmpSd) X(CMPORDSD, CmpSd)
    X(CMPPS, CmpPs) X(CMPEQPS, CmpPs) X(CMPLTPS, CmpPs) X(CMPLEPS, CmpPs) X(CMPUNORDPS, CmpPs)
    X(CMPNEQPS, CmpPs) X(CMPNLTPS, CmpPs) X(CMPNLEPS, CmpPs) X(CMPORDPS, CmpPs)
    X(CMPPD, CmpPd) X(CMPEQPD, CmpPd) X(CMPLTPD, CmpPd) X(CMPLEPD, CmpPd) X(CMPUNORDPD, CmpPd)
    X(CMPNEQPD, CmpPd) X(CMPNLTPD, CmpPd) X(CMPNLEPD, CmpPd) X(CMPORDPD, CmpPd)
#undef X
    case X86_INS_CVTSI2SS: return {O::CvtSi2Ss32, Form::XmmInt, false};
    case X86_INS_CVTSI2SD: return {O::CvtSi2Sd32, Form::XmmInt, false};
    case X86_INS_CVTSS2SI: return {O::CvtSs2Si32, Form::IntXmm, false};
    case X86_INS_CVTTSS2SI: return {O::CvttSs2Si32, Form::IntXmm, false};
    case X86_INS_CVTSD2SI: return {O::CvtSd2Si32, Form::IntXmm, false};
    case X86_INS_CVTTSD2SI: return {O::CvttSd2Si32, Form::IntXmm, false};
    case X86_INS_COMISS: return {O::Comiss, Form::Compare, false};
    case X86_INS_COMISD: return {O::Comisd, Form::Compare, false};
    case X86_INS_UCOMISS: return {O::Ucomiss, Form::Compare, false};
    case X86_INS_UCOMISD: return {O::Ucomisd, Form::Compare, false};
    default: return {};
  }
}

// The 64-bit variant follows its 32-bit one in HostFpOpcode.
HostFpOpcode wide(HostFpOpcode op) { return HostFpOpcode(uint8_t(op) + 1); }

}  // namespace

HostFpOp classify_sse(const cs_insn& insn) {
  const Mapping m = map_instruction(insn.id);
  if (m.op == HostFpOpcode::None) return {};
  const cs_x86* x = insn.detail ? &insn.detail->x86 : nullptr;
  // The legacy forms only (reg, reg/mem [, imm]); VEX forms are not emulated
  // by Unicorn 2.0.1 anyway, and the string instruction cmpsd has two
  // memory operands.
  if (!x || x->op_count < 2 || x->op_count > 3 || x->operands[0].type != X86_OP_REG) return {};
  if (x->op_count == 3 && x->operands[2].type != X86_OP_IMM) return {};
  const cs_x86_op& a = x->operands[0];
  const cs_x86_op& b = x->operands[1];
  HostFpOp op;
  op.op = m.op;
  if (m.imm) op.imm = insn.bytes[insn.size - 1];  // imm8 ends every legacy form
  if (m.form == Form::IntXmm) {
    if (x86_gpr_number(a.reg, true) < 0) return {};
    if (a.size == 8) op.op = wide(op.op);
  } else {
    int d = xmm_number(a.reg);
    if (d < 0) return {};
    op.dst = uint8_t(d);
  }
  if (b.type == X86_OP_MEM) {
    op.src = HostFpOp::kMemory;
    if (m.form == Form::XmmInt && b.size == 8) op.op = wide(op.op);
  } else if (b.type != X86_OP_REG) {
    return {};
  } else if (m.form == Form::XmmInt) {
    int g = x86_gpr_number(b.reg, true);
    if (g < 0) return {};
    op.src = uint8_t(HostFpOp::kGpr + g);
    if (b.size == 8) op.op = wide(op.op);
  } else {
    int s = xmm_number(b.reg);
    if (s < 0) return {};
    op.src = uint8_t(s);
  }
  return op;
}

void SseHostEval::before(uc_engine* uc, const HostFpOp& op) {
  have_src_addr_ = false;
  if (op.dst != HostFpOp::kNone) uc_reg_read(uc, UC_X86_REG_XMM0 + op.dst, dst_.b);
  if (op.src == HostFpOp::kMemory) return;
  if (op.src >= HostFpOp::kGpr) {
    std::memset(src_.b, 0, sizeof src_.b);
    uc_reg_read(uc, x86_gpr_unicorn_id(op.src - HostFpOp::kGpr), src_.b);
  } else {
    uc_reg_read(uc, UC_X86_REG_XMM0 + op.src, src_.b);
  }
}

uint32_t SseHostEval::after(uc_engine* uc, const HostFpOp& op) {
  if (op.src == HostFpOp::kMemory) {
    // The operand is still in memory (these instructions write only a
    // register): read it where the instruction read it.
    if (!have_src_addr_) return 0;
    std::memset(src_.b, 0, sizeof src_.b);
    if (uc_mem_read(uc, src_addr_, src_.b, memory_operand_bytes(op.op)) != UC_ERR_OK) return 0;
  }
  uint32_t mxcsr = 0;
  uc_reg_read(uc, UC_X86_REG_MXCSR, &mxcsr);
  Xmm result = dst_;
  uint32_t raised = 0;
  if (!run_on_host(op.op, result, src_, op.imm, mxcsr, raised)) return 0;
  if ((mxcsr | raised) != mxcsr) {
    const uint32_t flagged = mxcsr | raised;
    uc_reg_write(uc, UC_X86_REG_MXCSR, &flagged);
  }
  const uint32_t unmasked = raised & ~(mxcsr >> 7) & 0x3f;
  if (unmasked) return unmasked;
  if (writes_xmm(op.op)) {
    Xmm emulated;
    uc_reg_read(uc, UC_X86_REG_XMM0 + op.dst, emulated.b);
    if (std::memcmp(emulated.b, result.b, 16) != 0) uc_reg_write(uc, UC_X86_REG_XMM0 + op.dst, result.b);
  }
  return 0;
}

}  // namespace ttd::rec
