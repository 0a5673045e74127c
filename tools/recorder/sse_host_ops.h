// Runs one SSE floating-point instruction on the host CPU.
//
// Unicorn 2.0.1 (QEMU 5's softfloat) computes SSE arithmetic in software
// and never sets MXCSR's sticky exception flags, and where both operands of
// a lane are NaN it returns another NaN than x86 does. The recorder runs on
// an x86-64 CPU, so for these instructions it asks that CPU: the same
// instruction, register form, with the guest's rounding control, FTZ and
// DAZ, all exceptions masked. The result and the flags raised are exactly
// what the recorded program would have seen natively.
//
// On a host that is not x86-64 run_on_host() returns false and the
// recorder keeps Unicorn's answer.
#pragma once
#include <cstdint>

namespace ttd::rec {

struct alignas(16) Xmm {
  uint8_t b[16] = {};
};

// What the host evaluation runs (HostFpOp::op): an SSE operation from the
// table here, or an x87 kind (x87_host_eval.h).
enum class HostFpOpcode : uint8_t {
  None,
  // Two xmm inputs, xmm result (the scalar forms keep dst's upper lanes).
  AddPs, AddSs, AddPd, AddSd, SubPs, SubSs, SubPd, SubSd,
  MulPs, MulSs, MulPd, MulSd, DivPs, DivSs, DivPd, DivSd,
  MinPs, MinSs, MinPd, MinSd, MaxPs, MaxSs, MaxPd, MaxSd,
  HaddPs, HaddPd, HsubPs, HsubPd, AddsubPs, AddsubPd,
  SqrtPs, SqrtSs, SqrtPd, SqrtSd,
  // Approximations: each CPU family gives its own bits (Unicorn divides).
  RcpPs, RcpSs, RsqrtPs, RsqrtSs,
  CvtSs2Sd, CvtSd2Ss, CvtPs2Pd, CvtPd2Ps,
  CvtDq2Ps, CvtPs2Dq, CvttPs2Dq, CvtPd2Dq, CvttPd2Dq,
  // With an immediate (the predicate, the rounding mode).
  CmpPs, CmpSs, CmpPd, CmpSd, RoundPs, RoundSs, RoundPd, RoundSd,
  // Integer source: its value in the low 4 or 8 bytes of src.
  CvtSi2Ss32, CvtSi2Ss64, CvtSi2Sd32, CvtSi2Sd64,
  // Integer or EFLAGS result: only the MXCSR flags matter.
  CvtSs2Si32, CvtSs2Si64, CvttSs2Si32, CvttSs2Si64,
  CvtSd2Si32, CvtSd2Si64, CvttSd2Si32, CvttSd2Si64,
  Comiss, Comisd, Ucomiss, Ucomisd,
  // Not SSE: an x87 instruction, register or memory form (x87_host_eval.h),
  // or one the host does not run that still signals a pending exception;
  // or cvtpi2ps/cvtpi2pd from memory, after which the x87 stack (TOP and
  // tags) is put back (Unicorn enters MMX mode for them, the CPU does not).
  X87Register, X87Memory, X87Wait, KeepX87Stack,
  Count
};

// Whether op's result is an xmm register (else a general register or
// EFLAGS, which Unicorn computes right).
bool writes_xmm(HostFpOpcode op);
// Bytes op reads from a memory source operand.
unsigned memory_operand_bytes(HostFpOpcode op);

// Runs op with dst (the destination's value before), src and imm, under the
// guest's MXCSR control bits. On return dst holds the result (for ops that
// write an xmm register) and `raised` the exception flags (MXCSR bits 0-5)
// the instruction raised. The host's own MXCSR is restored.
bool run_on_host(HostFpOpcode op, Xmm& dst, const Xmm& src, uint8_t imm, uint32_t guest_mxcsr, uint32_t& raised);

}  // namespace ttd::rec
