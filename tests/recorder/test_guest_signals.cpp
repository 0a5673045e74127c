// The signal state (guest_signals.h) and the frames (signal_frame.h) on
// their own: which pending signal goes first, what is merged, siginfo's
// layout, and that rt_sigreturn gives back what the frame saved, with the
// handler's edits, on both architectures.
#include <doctest/doctest.h>

#include <unicorn/unicorn.h>

#include <cstring>
#include <map>
#include <vector>

#include "tools/recorder/signal_frame.h"

using namespace ttd;
using namespace ttd::rec;

TEST_CASE("guest signals: faults first, then the lowest number, the thread's own before the process's, no queueing") {
  GuestSignals s;
  auto info = [](int sig, int32_t code = SigInfo::kUser) {
    SigInfo i;
    i.signo = sig;
    i.code = code;
    return i;
  };
  s.raise_process(info(12));
  s.raise_process(info(10));
  s.raise_process(info(10, SigInfo::kTkill));  // merged: the first one's siginfo stays
  s.raise_thread(2, info(14));
  s.raise_thread(1, info(kSigSegv));
  CHECK(s.any_pending());
  CHECK(s.pending(1) == (sig_bit(10) | sig_bit(12) | sig_bit(kSigSegv)));
  s.mask(1) = sig_bit(10);
  CHECK(s.deliverable(1) == (sig_bit(12) | sig_bit(kSigSegv)));
  CHECK(s.dequeue(1, s.deliverable(1))->signo == kSigSegv);
  CHECK(s.dequeue(1, s.deliverable(1))->signo == 12);
  CHECK(!s.dequeue(1, s.deliverable(1)));
  CHECK(s.dequeue(2, s.pending(2))->signo == 14);  // thread 2's own first
  auto ten = s.dequeue(2, s.pending(2));
  REQUIRE(ten);
  CHECK(ten->signo == 10);
  CHECK(ten->code == SigInfo::kUser);
  CHECK(!s.any_pending());
}

TEST_CASE("guest signals: siginfo's fields where glibc and musl read them") {
  SigInfo i;
  i.signo = 17;
  i.code = 1;
  i.pid = 77;
  i.uid = 1000;
  i.status = 3;
  uint8_t b[128];
  i.encode(b);
  int32_t v[7];
  std::memcpy(v, b, sizeof v);
  CHECK(v[0] == 17);  // si_signo
  CHECK(v[2] == 1);   // si_code
  CHECK(v[4] == 77);  // si_pid
  CHECK(v[5] == 1000);
  CHECK(v[6] == 3);  // si_status
  SigInfo f;
  f.signo = kSigSegv;
  f.fault = true;
  f.addr = 0x1234567890;
  f.encode(b);
  uint64_t addr;
  std::memcpy(&addr, b + 16, 8);
  CHECK(addr == 0x1234567890);  // si_addr
}

namespace {

// Guest memory for a frame: one writable range of an emulator.
struct Stack {
  uc_engine* uc = nullptr;
  static constexpr uint64_t kBase = 0x100000, kSize = 0x10000;
  FrameMemory mem;
  explicit Stack(uc_arch arch, uc_mode mode) {
    REQUIRE(uc_open(arch, mode, &uc) == UC_ERR_OK);
    REQUIRE(uc_mem_map(uc, kBase, kSize, UC_PROT_READ | UC_PROT_WRITE) == UC_ERR_OK);
    mem.write = [this](uint64_t a, std::span<const uint8_t> b) {
      return a >= kBase && a + b.size() <= kBase + kSize && uc_mem_write(uc, a, b.data(), b.size()) == UC_ERR_OK;
    };
    mem.read = [this](uint64_t a, std::span<uint8_t> b) {
      return a >= kBase && a + b.size() <= kBase + kSize && uc_mem_read(uc, a, b.data(), b.size()) == UC_ERR_OK;
    };
  }
  ~Stack() { uc_close(uc); }
  uint64_t reg(int id) {
    uint64_t v = 0;
    uc_reg_read(uc, id, &v);
    return v;
  }
  void set(int id, uint64_t v) { uc_reg_write(uc, id, &v); }
  uint64_t u64(uint64_t a) {
    uint64_t v = 0;
    uc_mem_read(uc, a, &v, 8);
    return v;
  }
  void put(uint64_t a, uint64_t v) { uc_mem_write(uc, a, &v, 8); }
};

FrameRequest request(int sig) {
  FrameRequest r;
  r.info.signo = sig;
  r.act.handler = 0x401000;
  r.act.flags = SigAction::kSigInfo | SigAction::kRestorer;
  r.act.restorer = 0x402000;
  r.resume_pc = 0x400123;
  r.old_mask = sig_bit(10);
  return r;
}

}  // namespace

TEST_CASE("x86-64 signal frame: Linux's layout, rsp % 16 == 8 below the red zone, rt_sigreturn takes the handler's edits") {
  Stack st(UC_ARCH_X86, UC_MODE_64);
  const uint64_t sp = Stack::kBase + 0x8000 + 8;
  st.set(UC_X86_REG_RSP, sp);
  st.set(UC_X86_REG_RAX, 111);
  st.set(UC_X86_REG_R15, 0x1515);
  st.set(UC_X86_REG_EFLAGS, 0x202 | 0x400);  // DF set
  const uint8_t x5[16] = {5, 5, 5};
  uc_reg_write(st.uc, UC_X86_REG_XMM5, x5);
  auto pc = push_signal_frame(ArchId::X86_64, st.uc, st.mem, request(kSigUsr1));
  REQUIRE(pc);
  CHECK(*pc == 0x401000);
  const uint64_t frame = st.reg(UC_X86_REG_RSP);
  CHECK(frame % 16 == 8);
  CHECK(frame + 440 <= sp - 128);  // the red zone is left alone
  CHECK(st.u64(frame) == 0x402000);  // pretcode = sa_restorer
  CHECK(st.reg(UC_X86_REG_RDI) == uint64_t(kSigUsr1));
  CHECK(st.reg(UC_X86_REG_RDX) == frame + 8);  // &uc
  CHECK(st.reg(UC_X86_REG_RSI) == frame + 312);  // &info
  CHECK((st.reg(UC_X86_REG_EFLAGS) & 0x400) == 0);  // DF clear in the handler
  const uint64_t gregs = frame + 8 + 40;  // uc_mcontext.gregs, glibc's REG_R8 = 0 ... REG_RIP = 16
  CHECK(st.u64(gregs + 8 * 13) == 111);   // REG_RAX
  CHECK(st.u64(gregs + 8 * 7) == 0x1515);  // REG_R15
  CHECK(st.u64(gregs + 8 * 16) == 0x400123);  // REG_RIP
  CHECK(st.u64(gregs + 8 * 15) == sp);        // REG_RSP
  const uint64_t fpstate = st.u64(gregs + 8 * 23);
  CHECK(fpstate % 64 == 0);
  CHECK(st.u64(frame + 8 + 296) == sig_bit(10));  // uc_sigmask
  // The handler moves the pc on and changes rax; then `ret` pops pretcode.
  st.put(gregs + 8 * 16, 0x400130);
  st.put(gregs + 8 * 13, 42);
  st.set(UC_X86_REG_RSP, frame + 8);
  st.set(UC_X86_REG_R15, 0);
  auto back = pop_signal_frame(ArchId::X86_64, st.uc, st.mem);
  REQUIRE(back);
  CHECK(back->pc == 0x400130);
  CHECK(back->mask == sig_bit(10));
  CHECK(st.reg(UC_X86_REG_RAX) == 42);
  CHECK(st.reg(UC_X86_REG_R15) == 0x1515);
  CHECK(st.reg(UC_X86_REG_RSP) == sp);
  CHECK((st.reg(UC_X86_REG_EFLAGS) & 0x400) != 0);
  uint8_t x[16];
  uc_reg_read(st.uc, UC_X86_REG_XMM5, x);
  CHECK(x[0] == 5);
}

TEST_CASE("x86-64 signal frame: SA_ONSTACK puts it at the top of the alternate stack") {
  Stack st(UC_ARCH_X86, UC_MODE_64);
  st.set(UC_X86_REG_RSP, Stack::kBase + 0xf000);
  FrameRequest r = request(kSigSegv);
  r.act.flags |= SigAction::kOnStack;
  r.altstack = AltStack{Stack::kBase + 0x1000, 0x2000, 0};
  REQUIRE(push_signal_frame(ArchId::X86_64, st.uc, st.mem, r));
  const uint64_t frame = st.reg(UC_X86_REG_RSP);
  CHECK(frame > Stack::kBase + 0x1000);
  CHECK(frame < Stack::kBase + 0x3000);
}

TEST_CASE("AArch64 signal frame: siginfo, ucontext with fpsimd_context, frame record, rt_sigreturn takes the handler's edits") {
  Stack st(UC_ARCH_ARM64, UC_MODE_ARM);
  const uint64_t sp = Stack::kBase + 0x8000;
  st.set(UC_ARM64_REG_SP, sp);
  st.set(UC_ARM64_REG_X0, 7);
  st.set(UC_ARM64_REG_X29, 0x2929);
  st.set(UC_ARM64_REG_X30, 0x3030);
  FrameRequest r = request(kSigUsr1);
  r.act.flags = SigAction::kSigInfo;  // glibc: no SA_RESTORER
  r.restorer = 0x7000;
  auto pc = push_signal_frame(ArchId::AArch64, st.uc, st.mem, r);
  REQUIRE(pc);
  const uint64_t frame = st.reg(UC_ARM64_REG_SP);
  CHECK(frame % 16 == 0);
  CHECK(st.reg(UC_ARM64_REG_X30) == 0x7000);  // the trampoline
  CHECK(st.reg(UC_ARM64_REG_X1) == frame);
  CHECK(st.reg(UC_ARM64_REG_X2) == frame + 128);
  const uint64_t record = st.reg(UC_ARM64_REG_X29);
  CHECK(st.u64(record) == 0x2929);
  CHECK(st.u64(record + 8) == 0x3030);
  const uint64_t mc = frame + 128 + 176;  // uc_mcontext (glibc: after its 128-byte sigset_t)
  CHECK(st.u64(mc + 8) == 7);             // regs[0]
  CHECK(st.u64(mc + 256) == sp);          // sp
  CHECK(st.u64(mc + 264) == 0x400123);    // pc
  uint32_t magic = 0;
  uc_mem_read(st.uc, mc + 288, &magic, 4);
  CHECK(magic == 0x46508001);  // FPSIMD_MAGIC
  st.put(mc + 264, 0x400127 + 1);
  st.put(mc + 8, 42);
  st.set(UC_ARM64_REG_X29, 0);
  auto back = pop_signal_frame(ArchId::AArch64, st.uc, st.mem);
  REQUIRE(back);
  CHECK(back->pc == 0x400128);
  CHECK(st.reg(UC_ARM64_REG_X0) == 42);
  CHECK(st.reg(UC_ARM64_REG_X29) == 0x2929);
  CHECK(st.reg(UC_ARM64_REG_SP) == sp);
}
