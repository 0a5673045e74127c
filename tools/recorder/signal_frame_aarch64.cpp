// AArch64's struct rt_sigframe: the siginfo, then the ucontext (flags,
// link, uc_stack, the mask, padding to glibc's 128-byte sigset_t, and the
// sigcontext: fault address, x0-x30, sp, pc, pstate, then the records in
// __reserved: fpsimd_context and the terminating null record); above it a
// frame record {x29, x30} that x29 points at. x30 is sa_restorer or, as
// glibc passes none on AArch64, the trampoline standing in for the vDSO's.
#include <vector>

#include "tools/recorder/signal_frame.h"

namespace ttd::rec::frame_detail {

namespace {

constexpr size_t kUc = 128, kUcStack = kUc + 16, kSigmask = kUc + 40, kMcontext = kUc + 176;
constexpr size_t kFaultAddr = kMcontext, kRegs = kMcontext + 8, kSp = kMcontext + 256, kPc = kMcontext + 264,
                 kPstate = kMcontext + 272, kReserved = kMcontext + 288, kReservedSize = 4096;
constexpr size_t kFrameSize = kReserved + kReservedSize;  // sizeof(struct rt_sigframe) = 4688
constexpr uint32_t kFpsimdMagic = 0x46508001, kFpsimdSize = 528;
constexpr uint64_t kNzcv = 0xf0000000;

int x_id(int i) { return i < 29 ? UC_ARM64_REG_X0 + i : (i == 29 ? UC_ARM64_REG_X29 : UC_ARM64_REG_X30); }
uint64_t reg(uc_engine* uc, int id) {
  uint64_t v = 0;
  uc_reg_read(uc, id, &v);
  return v;
}
void set(uc_engine* uc, int id, uint64_t v) { uc_reg_write(uc, id, &v); }

}  // namespace

std::optional<uint64_t> push_aarch64(uc_engine* uc, FrameMemory& mem, const FrameRequest& req) {
  const uint64_t sp0 = reg(uc, UC_ARM64_REG_SP);
  uint64_t top = sp0;
  if ((req.act.flags & SigAction::kOnStack) && altstack_flags(req.altstack, sp0) == 0)
    top = req.altstack.sp + req.altstack.size;
  const uint64_t record = (top - 16) & ~uint64_t(15);
  const uint64_t frame = record - kFrameSize;

  std::vector<uint8_t> f(kFrameSize, 0);
  req.info.encode(f.data());
  put<uint64_t>(f, kUcStack, req.altstack.sp);
  put<int32_t>(f, kUcStack + 8, altstack_flags(req.altstack, sp0));
  put<uint64_t>(f, kUcStack + 16, req.altstack.size);
  put<uint64_t>(f, kSigmask, req.old_mask);
  put<uint64_t>(f, kFaultAddr, req.info.fault ? req.info.addr : 0);
  for (int i = 0; i < 31; ++i) put<uint64_t>(f, kRegs + 8 * size_t(i), reg(uc, x_id(i)));
  put<uint64_t>(f, kSp, sp0);
  put<uint64_t>(f, kPc, req.resume_pc);
  put<uint64_t>(f, kPstate, reg(uc, UC_ARM64_REG_NZCV) & kNzcv);
  put<uint32_t>(f, kReserved, kFpsimdMagic);
  put<uint32_t>(f, kReserved + 4, kFpsimdSize);
  put<uint32_t>(f, kReserved + 8, uint32_t(reg(uc, UC_ARM64_REG_FPSR)));
  put<uint32_t>(f, kReserved + 12, uint32_t(reg(uc, UC_ARM64_REG_FPCR)));
  for (int i = 0; i < 32; ++i) {
    uint8_t v[16];
    uc_reg_read(uc, UC_ARM64_REG_Q0 + i, v);
    std::copy(v, v + 16, f.begin() + long(kReserved + 16 + 16 * size_t(i)));
  }
  // The null record after it ends the list (the bytes are already 0).
  std::vector<uint8_t> rec(16);
  put<uint64_t>(rec, 0, reg(uc, UC_ARM64_REG_X29));
  put<uint64_t>(rec, 8, reg(uc, UC_ARM64_REG_X30));
  if (!mem.write(record, rec) || !mem.write(frame, f)) return std::nullopt;

  set(uc, UC_ARM64_REG_X0, uint64_t(req.info.signo));
  set(uc, UC_ARM64_REG_X1, frame);
  set(uc, UC_ARM64_REG_X2, frame + kUc);
  set(uc, UC_ARM64_REG_SP, frame);
  set(uc, UC_ARM64_REG_X29, record);
  set(uc, UC_ARM64_REG_X30, (req.act.flags & SigAction::kRestorer) ? req.act.restorer : req.restorer);
  return req.act.handler;
}

std::optional<FrameRestore> pop_aarch64(uc_engine* uc, FrameMemory& mem) {
  const uint64_t frame = reg(uc, UC_ARM64_REG_SP);
  if (frame & 15) return std::nullopt;
  std::vector<uint8_t> f(kFrameSize);
  if (!mem.read(frame, f)) return std::nullopt;
  FrameRestore r;
  for (int i = 0; i < 31; ++i) set(uc, x_id(i), get<uint64_t>(f, kRegs + 8 * size_t(i)));
  set(uc, UC_ARM64_REG_SP, get<uint64_t>(f, kSp));
  r.pc = get<uint64_t>(f, kPc);
  set(uc, UC_ARM64_REG_NZCV, get<uint64_t>(f, kPstate) & kNzcv);
  // The records: fpsimd_context is required, others are skipped by size.
  bool fpsimd = false;
  for (size_t off = kReserved; off + 8 <= kFrameSize;) {
    const uint32_t magic = get<uint32_t>(f, off), size = get<uint32_t>(f, off + 4);
    if (magic == 0) break;
    if (size < 8 || off + size > kFrameSize) return std::nullopt;
    if (magic == kFpsimdMagic && size >= kFpsimdSize) {
      set(uc, UC_ARM64_REG_FPSR, get<uint32_t>(f, off + 8));
      set(uc, UC_ARM64_REG_FPCR, get<uint32_t>(f, off + 12));
      for (int i = 0; i < 32; ++i) {
        uint8_t v[16];
        std::copy(f.begin() + long(off + 16 + 16 * size_t(i)), f.begin() + long(off + 32 + 16 * size_t(i)), v);
        uc_reg_write(uc, UC_ARM64_REG_Q0 + i, v);
      }
      fpsimd = true;
    }
    off += size;
  }
  if (!fpsimd) return std::nullopt;
  r.mask = get<uint64_t>(f, kSigmask);
  r.altstack.sp = get<uint64_t>(f, kUcStack);
  r.altstack.flags = get<int32_t>(f, kUcStack + 8);
  r.altstack.size = get<uint64_t>(f, kUcStack + 16);
  return r;
}

}  // namespace ttd::rec::frame_detail
