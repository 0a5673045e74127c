#include "tools/recorder/sse_host_ops.h"

#include <array>
#include <cstring>
#include <utility>

namespace ttd::rec {

namespace {

using Fn = void (*)(Xmm& d, const Xmm& s, uint8_t imm);

struct OpInfo {
  Fn fn = nullptr;
  uint8_t mem_bytes = 0;
  bool xmm_result = true;
};

#if defined(__x86_64__)

typedef double V __attribute__((vector_size(16)));

V load(const Xmm& x) {
  V v;
  std::memcpy(&v, x.b, 16);
  return v;
}
void store(Xmm& x, V v) { std::memcpy(x.b, &v, 16); }

// dst = dst OP src, in the instruction's own register form.
#define SSE_XX(NAME, INSN)                                  \
  void NAME(Xmm& d, const Xmm& s, uint8_t) {                \
    V a = load(d), b = load(s);                             \
    asm volatile(INSN " %1, %0" : "+x"(a) : "x"(b));        \
    store(d, a);                                            \
  }
SSE_XX(addps, "addps") SSE_XX(addss, "addss") SSE_XX(addpd, "addpd") SSE_XX(addsd, "addsd")
SSE_XX(subps, "subps") SSE_XX(subss, "subss") SSE_XX(subpd, "subpd") SSE_XX(subsd, "subsd")
SSE_XX(mulps, "mulps") SSE_XX(mulss, "mulss") SSE_XX(mulpd, "mulpd") SSE_XX(mulsd, "mulsd")
SSE_XX(divps, "divps") SSE_XX(divss, "divss") SSE_XX(divpd, "divpd") SSE_XX(divsd, "divsd")
SSE_XX(minps, "minps") SSE_XX(minss, "minss") SSE_XX(minpd, "minpd") SSE_XX(minsd, "minsd")
SSE_XX(maxps, "maxps") SSE_XX(maxss, "maxss") SSE_XX(maxpd, "maxpd") SSE_XX(maxsd, "maxsd")
SSE_XX(haddps, "haddps") SSE_XX(haddpd, "haddpd") SSE_XX(hsubps, "hsubps") SSE_XX(hsubpd, "hsubpd")
SSE_XX(addsubps, "addsubps") SSE_XX(addsubpd, "addsubpd")
SSE_XX(sqrtps, "sqrtps") SSE_XX(sqrtss, "sqrtss") SSE_XX(sqrtpd, "sqrtpd") SSE_XX(sqrtsd, "sqrtsd")
SSE_XX(rcpps, "rcpps") SSE_XX(rcpss, "rcpss") SSE_XX(rsqrtps, "rsqrtps") SSE_XX(rsqrtss, "rsqrtss")
SSE_XX(cvtss2sd, "cvtss2sd") SSE_XX(cvtsd2ss, "cvtsd2ss") SSE_XX(cvtps2pd, "cvtps2pd") SSE_XX(cvtpd2ps, "cvtpd2ps")
SSE_XX(cvtdq2ps, "cvtdq2ps") SSE_XX(cvtps2dq, "cvtps2dq") SSE_XX(cvttps2dq, "cvttps2dq")
SSE_XX(cvtpd2dq, "cvtpd2dq") SSE_XX(cvttpd2dq, "cvttpd2dq")
#undef SSE_XX

// dst = dst OP src with a constant immediate: one function per value.
#define SSE_IMM(NAME, INSN)                                        \
  template <int I>                                                 \
  void NAME##_i(Xmm& d, const Xmm& s, uint8_t) {                   \
    V a = load(d), b = load(s);                                    \
    asm volatile(INSN " %2, %1, %0" : "+x"(a) : "x"(b), "i"(I));   \
    store(d, a);                                                   \
  }                                                                \
  template <size_t... I>                                           \
  constexpr std::array<Fn, sizeof...(I)> NAME##_table(std::index_sequence<I...>) { \
    return {NAME##_i<int(I)>...};                                  \
  }                                                                \
  void NAME(Xmm& d, const Xmm& s, uint8_t imm) {                   \
    static constexpr auto table = NAME##_table(std::make_index_sequence<16>());     \
    table[imm & 15](d, s, imm);                                    \
  }
// Legacy SSE compares take predicates 0-7; bit 3 is ignored by no CPU
// that runs them without VEX, so only the low three bits are used there.
SSE_IMM(cmpps_, "cmpps") SSE_IMM(cmpss_, "cmpss") SSE_IMM(cmppd_, "cmppd") SSE_IMM(cmpsd_, "cmpsd")
SSE_IMM(roundps, "roundps") SSE_IMM(roundss, "roundss") SSE_IMM(roundpd, "roundpd") SSE_IMM(roundsd, "roundsd")
#undef SSE_IMM
void cmpps(Xmm& d, const Xmm& s, uint8_t imm) { cmpps_(d, s, imm & 7); }
void cmpss(Xmm& d, const Xmm& s, uint8_t imm) { cmpss_(d, s, imm & 7); }
void cmppd(Xmm& d, const Xmm& s, uint8_t imm) { cmppd_(d, s, imm & 7); }
void cmpsd(Xmm& d, const Xmm& s, uint8_t imm) { cmpsd_(d, s, imm & 7); }

// Integer sources: the value sits in src's low bytes.
#define SSE_FROM_INT(NAME, INSN, T)                     \
  void NAME(Xmm& d, const Xmm& s, uint8_t) {            \
    V a = load(d);                                      \
    T v;                                                \
    std::memcpy(&v, s.b, sizeof v);                     \
    asm volatile(INSN " %1, %0" : "+x"(a) : "r"(v));    \
    store(d, a);                                        \
  }
SSE_FROM_INT(cvtsi2ss32, "cvtsi2ssl", int32_t) SSE_FROM_INT(cvtsi2ss64, "cvtsi2ssq", int64_t)
SSE_FROM_INT(cvtsi2sd32, "cvtsi2sdl", int32_t) SSE_FROM_INT(cvtsi2sd64, "cvtsi2sdq", int64_t)
#undef SSE_FROM_INT

// Integer results: kept in dst's low bytes, which nobody reads back.
#define SSE_TO_INT(NAME, INSN, T)                       \
  void NAME(Xmm& d, const Xmm& s, uint8_t) {            \
    V b = load(s);                                      \
    T r;                                                \
    asm volatile(INSN " %1, %0" : "=r"(r) : "x"(b));    \
    std::memcpy(d.b, &r, sizeof r);                     \
  }
SSE_TO_INT(cvtss2si32, "cvtss2si", int32_t) SSE_TO_INT(cvtss2si64, "cvtss2si", int64_t)
SSE_TO_INT(cvttss2si32, "cvttss2si", int32_t) SSE_TO_INT(cvttss2si64, "cvttss2si", int64_t)
SSE_TO_INT(cvtsd2si32, "cvtsd2si", int32_t) SSE_TO_INT(cvtsd2si64, "cvtsd2si", int64_t)
SSE_TO_INT(cvttsd2si32, "cvttsd2si", int32_t) SSE_TO_INT(cvttsd2si64, "cvttsd2si", int64_t)
#undef SSE_TO_INT

#define SSE_COMPARE(NAME, INSN)                                 \
  void NAME(Xmm& d, const Xmm& s, uint8_t) {                    \
    V a = load(d), b = load(s);                                 \
    asm volatile(INSN " %1, %0" : : "x"(a), "x"(b) : "cc");     \
  }
SSE_COMPARE(comiss, "comiss") SSE_COMPARE(comisd, "comisd") SSE_COMPARE(ucomiss, "ucomiss")
SSE_COMPARE(ucomisd, "ucomisd")
#undef SSE_COMPARE

#define OP(e, f, bytes, xmm) t[size_t(HostFpOpcode::e)] = OpInfo{f, bytes, xmm}
constexpr std::array<OpInfo, size_t(HostFpOpcode::Count)> make_table() {
  std::array<OpInfo, size_t(HostFpOpcode::Count)> t{};
  OP(AddPs, addps, 16, true); OP(AddSs, addss, 4, true); OP(AddPd, addpd, 16, true); OP(AddSd, addsd, 8, true);
  OP(SubPs, subps, 16, true); OP(SubSs, subss, 4, true); OP(SubPd, subpd, 16, true); OP(SubSd, subsd, 8, true);
  OP(MulPs, mulps, 16, true); OP(MulSs, mulss, 4, true); OP(MulPd, mulpd, 16, true); OP(MulSd, mulsd, 8, true);
  OP(DivPs, divps, 16, true); OP(DivSs, divss, 4, true); OP(DivPd, divpd, 16, true); OP(DivSd, divsd, 8, true);
  OP(MinPs, minps, 16, true); OP(MinSs, minss, 4, true); OP(MinPd, minpd, 16, true); OP(MinSd, minsd, 8, true);
  OP(MaxPs, maxps, 16, true); OP(MaxSs, maxss, 4, true); OP(MaxPd, maxpd, 16, true); OP(MaxSd, maxsd, 8, true);
  OP(HaddPs, haddps, 16, true); OP(HaddPd, haddpd, 16, true); OP(HsubPs, hsubps, 16, true);
  OP(HsubPd, hsubpd, 16, true); OP(AddsubPs, addsubps, 16, true); OP(AddsubPd, addsubpd, 16, true);
  OP(SqrtPs, sqrtps, 16, true); OP(SqrtSs, sqrtss, 4, true); OP(SqrtPd, sqrtpd, 16, true); OP(SqrtSd, sqrtsd, 8, true);
  OP(RcpPs, rcpps, 16, true); OP(RcpSs, rcpss, 4, true); OP(RsqrtPs, rsqrtps, 16, true); OP(RsqrtSs, rsqrtss, 4, true);
  OP(CvtSs2Sd, cvtss2sd, 4, true); OP(CvtSd2Ss, cvtsd2ss, 8, true); OP(CvtPs2Pd, cvtps2pd, 8, true);
  OP(CvtPd2Ps, cvtpd2ps, 16, true); OP(CvtDq2Ps, cvtdq2ps, 16, true); OP(CvtPs2Dq, cvtps2dq, 16, true);
  OP(CvttPs2Dq, cvttps2dq, 16, true); OP(CvtPd2Dq, cvtpd2dq, 16, true); OP(CvttPd2Dq, cvttpd2dq, 16, true);
  OP(CmpPs, cmpps, 16, true); OP(CmpSs, cmpss, 4, true); OP(CmpPd, cmppd, 16, true); OP(CmpSd, cmpsd, 8, true);
  OP(RoundPs, roundps, 16, true); OP(RoundSs, roundss, 4, true); OP(RoundPd, roundpd, 16, true);
  OP(RoundSd, roundsd, 8, true);
  OP(CvtSi2Ss32, cvtsi2ss32, 4, true); OP(CvtSi2Ss64, cvtsi2ss64, 8, true);
  OP(CvtSi2Sd32, cvtsi2sd32, 4, true); OP(CvtSi2Sd64, cvtsi2sd64, 8, true);
  OP(CvtSs2Si32, cvtss2si32, 4, false); OP(CvtSs2Si64, cvtss2si64, 4, false);
  OP(CvttSs2Si32, cvttss2si32, 4, false); OP(CvttSs2Si64, cvttss2si64, 4, false);
  OP(CvtSd2Si32, cvtsd2si32, 8, false); OP(CvtSd2Si64, cvtsd2si64, 8, false);
  OP(CvttSd2Si32, cvttsd2si32, 8, false); OP(CvttSd2Si64, cvttsd2si64, 8, false);
  OP(Comiss, comiss, 4, false); OP(Comisd, comisd, 8, false); OP(Ucomiss, ucomiss, 4, false);
  OP(Ucomisd, ucomisd, 8, false);
  return t;
}
#undef OP

constexpr auto kOps = make_table();

uint32_t get_mxcsr() {
  uint32_t v;
  asm volatile("stmxcsr %0" : "=m"(v));
  return v;
}
void set_mxcsr(uint32_t v) { asm volatile("ldmxcsr %0" : : "m"(v) : "memory"); }

#else

constexpr std::array<OpInfo, size_t(HostFpOpcode::Count)> kOps{};

#endif

constexpr uint32_t kFlagBits = 0x3f;
constexpr uint32_t kAllMasked = 0x1f80;
constexpr uint32_t kControlKept = 0x0040 /* DAZ */ | 0x6000 /* RC */ | 0x8000 /* FTZ */;

}  // namespace

bool writes_xmm(HostFpOpcode op) { return kOps[size_t(op)].xmm_result; }

unsigned memory_operand_bytes(HostFpOpcode op) { return kOps[size_t(op)].mem_bytes; }

bool run_on_host(HostFpOpcode op, Xmm& dst, const Xmm& src, uint8_t imm, uint32_t guest_mxcsr, uint32_t& raised) {
  raised = 0;
  const OpInfo& info = kOps[size_t(op)];
  if (!info.fn) return false;
#if defined(__x86_64__)
  const uint32_t host = get_mxcsr();
  set_mxcsr((guest_mxcsr & kControlKept) | kAllMasked);
  info.fn(dst, src, imm);
  raised = get_mxcsr() & kFlagBits;
  set_mxcsr(host);
  return true;
#else
  (void)dst, (void)src, (void)imm, (void)guest_mxcsr;
  return false;
#endif
}

}  // namespace ttd::rec
