// x86-64's struct rt_sigframe: pretcode (sa_restorer), the ucontext (flags,
// link, uc_stack, sigcontext with the registers in Linux's order, the
// signal mask) and the siginfo; the FP state in fxsave layout 64-byte
// aligned above it. glibc and musl always give SA_RESTORER on x86-64.
#include <vector>

#include "tools/recorder/signal_frame.h"
#include "tools/recorder/x87_state.h"

namespace ttd::rec::frame_detail {

namespace {

// Offsets in the frame (from its start, where rsp points at handler entry).
constexpr size_t kUcFlags = 8, kUcStack = 24, kGregs = 48, kCsGsFsSs = 192, kErr = 200, kTrapno = 208,
                 kOldmask = 216, kCr2 = 224, kFpstate = 232, kSigmask = 304, kInfo = 312, kFrameSize = 440;
constexpr size_t kFxsaveSize = 512;
constexpr uint64_t kRedZone = 128;
constexpr uint64_t kFixEflags = 0x50dd5;  // AC OF DF TF SF ZF AF PF CF RF: what sigreturn takes from the frame

// sigcontext's general registers, in Linux's order (r8 ... eflags).
const int kGregIds[18] = {UC_X86_REG_R8,  UC_X86_REG_R9,  UC_X86_REG_R10, UC_X86_REG_R11, UC_X86_REG_R12,
                          UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15, UC_X86_REG_RDI, UC_X86_REG_RSI,
                          UC_X86_REG_RBP, UC_X86_REG_RBX, UC_X86_REG_RDX, UC_X86_REG_RAX, UC_X86_REG_RCX,
                          UC_X86_REG_RSP, UC_X86_REG_RIP, UC_X86_REG_EFLAGS};
constexpr int kRsp = 15, kRip = 16, kEflags = 17;

uint64_t reg(uc_engine* uc, int id) {
  uint64_t v = 0;
  uc_reg_read(uc, id, &v);
  return v;
}
void set(uc_engine* uc, int id, uint64_t v) { uc_reg_write(uc, id, &v); }

// fxsave image of the x87/SSE state: what the guest's own fxsave would store.
std::vector<uint8_t> save_fp(uc_engine* uc) {
  FxsaveImage image;
  read_x87(uc, image);
  std::vector<uint8_t> b(image.b, image.b + kFxsaveSize);
  put<uint32_t>(b, 24, uint32_t(reg(uc, UC_X86_REG_MXCSR)));
  put<uint32_t>(b, 28, 0xffff);  // MXCSR_MASK
  for (int i = 0; i < 16; ++i) {
    uint8_t x[16];
    uc_reg_read(uc, UC_X86_REG_XMM0 + i, x);
    std::copy(x, x + 16, b.begin() + 160 + 16 * i);
  }
  return b;
}

void restore_fp(uc_engine* uc, std::span<const uint8_t> b) {
  FxsaveImage image;
  std::copy(b.begin(), b.begin() + kFxsaveSize, image.b);
  write_x87(uc, image);
  set(uc, UC_X86_REG_MXCSR, get<uint32_t>(b, 24));
  for (int i = 0; i < 16; ++i) {
    uint8_t x[16];
    std::copy(b.begin() + 160 + 16 * i, b.begin() + 176 + 16 * i, x);
    uc_reg_write(uc, UC_X86_REG_XMM0 + i, x);
  }
}

}  // namespace

std::optional<uint64_t> push_x86_64(uc_engine* uc, FrameMemory& mem, const FrameRequest& req) {
  const uint64_t rsp = reg(uc, UC_X86_REG_RSP);
  // get_sigframe: below the red zone, or at the top of the alternate stack
  // (SA_ONSTACK, when not already on it); the FP area 64-byte aligned,
  // then the frame with rsp % 16 == 8 as after a call.
  uint64_t sp = rsp - kRedZone;
  if ((req.act.flags & SigAction::kOnStack) && altstack_flags(req.altstack, sp) == 0)
    sp = req.altstack.sp + req.altstack.size;
  const uint64_t fpstate = (sp - kFxsaveSize) & ~uint64_t(63);
  const uint64_t frame = ((fpstate - kFrameSize) & ~uint64_t(15)) - 8;

  std::vector<uint8_t> f(kFrameSize, 0);
  put<uint64_t>(f, 0, req.act.restorer);
  put<uint64_t>(f, kUcFlags, 2 | 4);  // UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS (no xsave header: UC_FP_XSTATE clear)
  put<uint64_t>(f, kUcStack, req.altstack.sp);
  put<int32_t>(f, kUcStack + 8, altstack_flags(req.altstack, rsp));
  put<uint64_t>(f, kUcStack + 16, req.altstack.size);
  for (int i = 0; i < 18; ++i) put<uint64_t>(f, kGregs + 8 * size_t(i), reg(uc, kGregIds[i]));
  put<uint64_t>(f, kGregs + 8 * kRip, req.resume_pc);
  put<uint16_t>(f, kCsGsFsSs, 0x33);
  put<uint16_t>(f, kCsGsFsSs + 6, 0x2b);
  put<uint64_t>(f, kErr, req.err);
  put<uint64_t>(f, kTrapno, req.trapno);
  put<uint64_t>(f, kOldmask, req.old_mask);
  put<uint64_t>(f, kCr2, req.cr2);
  put<uint64_t>(f, kFpstate, fpstate);
  put<uint64_t>(f, kSigmask, req.old_mask);
  req.info.encode(f.data() + kInfo);
  if (!mem.write(fpstate, save_fp(uc)) || !mem.write(frame, f)) return std::nullopt;

  set(uc, UC_X86_REG_RSP, frame);
  set(uc, UC_X86_REG_RDI, uint64_t(req.info.signo));
  set(uc, UC_X86_REG_RSI, frame + kInfo);
  set(uc, UC_X86_REG_RDX, frame + kUcFlags);
  set(uc, UC_X86_REG_RAX, 0);  // no vector registers for a variadic handler
  set(uc, UC_X86_REG_EFLAGS, reg(uc, UC_X86_REG_EFLAGS) & ~uint64_t(0x400 | 0x100 | 0x10000));  // DF TF RF
  // The handler starts with the FPU in its initial state (fpu__clear_user_states).
  set(uc, UC_X86_REG_FPCW, 0x37f);
  set(uc, UC_X86_REG_FPSW, 0);
  set(uc, UC_X86_REG_FPTAG, 0xffff);
  set(uc, UC_X86_REG_MXCSR, 0x1f80);
  const uint8_t zero[16] = {};
  for (int i = 0; i < 16; ++i) uc_reg_write(uc, UC_X86_REG_XMM0 + i, zero);
  return req.act.handler;
}

std::optional<FrameRestore> pop_x86_64(uc_engine* uc, FrameMemory& mem) {
  // The handler's `ret` popped pretcode: the frame starts 8 bytes lower.
  const uint64_t frame = reg(uc, UC_X86_REG_RSP) - 8;
  std::vector<uint8_t> f(kFrameSize);
  if (!mem.read(frame, f)) return std::nullopt;
  FrameRestore r;
  for (int i = 0; i < 18; ++i) {
    const uint64_t v = get<uint64_t>(f, kGregs + 8 * size_t(i));
    if (i == kRip) r.pc = v;
    else if (i == kEflags) set(uc, UC_X86_REG_EFLAGS, (reg(uc, UC_X86_REG_EFLAGS) & ~kFixEflags) | (v & kFixEflags));
    else set(uc, kGregIds[i], v);
  }
  if (const uint64_t fp = get<uint64_t>(f, kFpstate)) {
    std::vector<uint8_t> fx(kFxsaveSize);
    if (!mem.read(fp, fx)) return std::nullopt;
    restore_fp(uc, fx);
  }
  r.mask = get<uint64_t>(f, kSigmask);
  r.altstack.sp = get<uint64_t>(f, kUcStack);
  r.altstack.flags = get<int32_t>(f, kUcStack + 8);
  r.altstack.size = get<uint64_t>(f, kUcStack + 16);
  return r;
}

}  // namespace ttd::rec::frame_detail
