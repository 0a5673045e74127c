#include "ppc_guest_run.h"

#include <unicorn/unicorn.h>

#include <algorithm>
#include <cstring>

#include "formats/tt6/ppc_opcode.h"
#include "formats/tt6/testing/tt6_writer.h"
#include "state/arch.h"
#include "ppc_sync_tracker.h"

namespace ttd::test {

namespace {

#include "guest/guest_image.inc"

using fmt::tt6::PpcUserState;

constexpr uint32_t kMapBase = 0x10000, kMapSize = 0x10000;
// A scratch page where the vector-register probe runs and saves.
constexpr uint32_t kProbeBase = 0x100000, kProbeSave = kProbeBase + 0x800;
constexpr uint32_t kMsrFp = 1u << 13, kMsrVec = 1u << 25;
constexpr int kMaxSteps = 100000;

uint32_t encode_stvx(uint32_t vs, uint32_t rb) { return (31u << 26) | (vs << 21) | (rb << 11) | (231u << 1); }

// Unicorn 2.0.1 exposes no AltiVec registers: the probe stores v0-v31,
// VSCR (mfvscr) and VRSAVE (mfspr 256) to kProbeSave. It runs between two
// instructions inside a saved context, which is restored afterwards.
std::vector<uint32_t> probe_code() {
  std::vector<uint32_t> code;
  for (uint32_t v = 0; v < 32; ++v) {
    code.push_back(encode_stvx(v, 3));
    code.push_back((14u << 26) | (3u << 21) | (3u << 16) | 16u);  // addi r3, r3, 16
  }
  code.push_back(0x10000604u);                                   // mfvscr v0
  code.push_back(encode_stvx(0, 3));                             // stvx v0, 0, r3
  code.push_back((31u << 26) | (4u << 21) | (8u << 11) | (339u << 1));  // mfspr r4, 256
  code.push_back((36u << 26) | (4u << 21) | (3u << 16) | 16u);  // stw r4, 16(r3)
  return code;
}

struct Tracer {
  uc_engine* uc = nullptr;
  uc_context* ctx = nullptr;
  size_t probe_count = 0;  // instructions
  bool probing = false;
  std::vector<HookedAccess>* hooked = nullptr;
  int interrupt = -1;
};

void on_memory(uc_engine*, uc_mem_type type, uint64_t addr, int size, int64_t, void* user) {
  auto& t = *static_cast<Tracer*>(user);
  if (t.probing || !t.hooked) return;
  t.hooked->push_back(HookedAccess{type == UC_MEM_WRITE, uint32_t(addr), uint32_t(size)});
}

void on_interrupt(uc_engine*, uint32_t number, void* user) {
  auto& t = *static_cast<Tracer*>(user);
  if (!t.probing) t.interrupt = int(number);
}

uint32_t r32(uc_engine* uc, int id) {
  uint32_t v = 0;
  uc_reg_read(uc, id, &v);
  return v;
}

bool read_state(Tracer& t, PpcUserState& s, std::string& error) {
  uc_engine* uc = t.uc;
  s.srr0 = r32(uc, UC_PPC_REG_PC);
  s.srr1 = r32(uc, UC_PPC_REG_MSR);
  for (int i = 0; i < 32; ++i) s.gpr[i] = r32(uc, UC_PPC_REG_0 + i);
  s.cr = r32(uc, UC_PPC_REG_CR);
  s.xer = r32(uc, UC_PPC_REG_XER);
  s.lr = r32(uc, UC_PPC_REG_LR);
  s.ctr = r32(uc, UC_PPC_REG_CTR);
  s.mq = 0;  // 601 only
  for (int i = 0; i < 32; ++i) uc_reg_read(uc, UC_PPC_REG_FPR0 + i, &s.fpr[i]);
  s.fpscr = r32(uc, UC_PPC_REG_FPSCR);

  t.probing = true;
  uc_context_save(uc, t.ctx);
  uint32_t save = kProbeSave;
  uc_reg_write(uc, UC_PPC_REG_3, &save);
  // By instruction count: Unicorn 2.0.1 takes ~100 ms per start that stops
  // at an `until` address on PPC, and microseconds for a count.
  uc_err err = uc_emu_start(uc, kProbeBase, 0xFFFFFFFFu, 0, t.probe_count);
  uint8_t saved[33 * 16 + 4 + 16];
  uc_mem_read(uc, kProbeSave, saved, sizeof saved);
  uc_context_restore(uc, t.ctx);
  t.probing = false;
  if (err != UC_ERR_OK) {
    error = std::string("vector probe failed: ") + uc_strerror(err);
    return false;
  }
  for (int v = 0; v < 32; ++v)
    for (int w = 0; w < 4; ++w) s.vr[v][w] = load_be32(saved + 16 * v + 4 * w);
  s.vscr = load_be32(saved + 32 * 16 + 12);
  s.vrsave = load_be32(saved + 33 * 16);
  s.vrvalid = 0xFFFFFFFFu;  // the probe read them all
  return true;
}

std::vector<uint8_t> snapshot(uc_engine* uc, const MemoryTimeline& m) {
  std::vector<uint8_t> bytes(m.size());
  uc_mem_read(uc, m.base(), bytes.data(), bytes.size());
  return bytes;
}

}  // namespace

void MemoryTimeline::note(size_t step, std::vector<uint8_t> bytes) {
  if (!versions_.empty() && versions_.back().second == bytes) return;
  versions_.emplace_back(step, std::move(bytes));
}

const std::vector<uint8_t>& MemoryTimeline::before(size_t step) const {
  auto it = std::upper_bound(versions_.begin(), versions_.end(), step,
                             [](size_t s, const auto& v) { return s < v.first; });
  return std::prev(it)->second;
}

GuestRun run_ppc_guest() {
  GuestRun run;
  Tracer t;
  const ArchDesc& arch = arch_desc(ArchId::Ppc32);
  if (uc_open(uc_arch(arch.uc_arch), uc_mode(arch.uc_mode), &t.uc) != UC_ERR_OK) {
    run.error = "uc_open failed";
    return run;
  }
  uc_engine* uc = t.uc;
  uc_context_alloc(uc, &t.ctx);
  uc_mem_map(uc, kMapBase, kMapSize, UC_PROT_ALL);
  uc_mem_write(uc, kGuestBase, kGuestImage, sizeof kGuestImage);
  uc_mem_map(uc, kProbeBase, 0x1000, UC_PROT_ALL);
  std::vector<uint8_t> probe;
  for (uint32_t w : probe_code()) probe.insert(probe.end(), {uint8_t(w >> 24), uint8_t(w >> 16), uint8_t(w >> 8), uint8_t(w)});
  uc_mem_write(uc, kProbeBase, probe.data(), probe.size());
  t.probe_count = probe.size() / 4;
  uint32_t msr = r32(uc, UC_PPC_REG_MSR) | kMsrFp | kMsrVec;
  uc_reg_write(uc, UC_PPC_REG_MSR, &msr);

  uc_hook mem_hook, intr_hook;
  uc_hook_add(uc, &mem_hook, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(on_memory), &t, 1, 0);
  uc_hook_add(uc, &intr_hook, UC_HOOK_INTR, reinterpret_cast<void*>(on_interrupt), &t, 1, 0);

  run.tail_begin = kSymGuestTail;
  run.tail_end = kSymGuestEnd;
  run.scratch = kSymScratch;
  run.memory.set_range(kMapBase, (kSymBssEnd + 15 - kMapBase) & ~15u);
  fmt::tt6::Tt6Writer tt6(fmt::tt6::Variant::Tt6, kGuestBase), tt6e(fmt::tt6::Variant::Tt6e, kGuestBase);
  fmt::tt6::FullWriter full;
  SyncTracker sync(SyncEntryPoints{kSymGuestMutexLock, kSymGuestMutexTrylock, kSymGuestMutexUnlock,
                                   kSymGuestCondSignal, kSymGuestCondBroadcast, kSymGuestCondWait});
  uint32_t pc = kGuestBase;
  uc_reg_write(uc, UC_PPC_REG_PC, &pc);  // so the first state's srr0 is the entry point
  while (pc != kSymGuestEnd) {
    if (run.steps.size() >= size_t(kMaxSteps)) {
      run.error = "guest did not reach guest_end";
      break;
    }
    TracedStep st;
    st.pc = pc;
    uint8_t op_bytes[4];
    uc_mem_read(uc, pc, op_bytes, 4);
    st.opcode = load_be32(op_bytes);
    if (!read_state(t, st.before, run.error)) break;
    run.memory.note(run.steps.size(), snapshot(uc, run.memory));

    // Amber -p: synchronisation records go before this instruction's record.
    for (const SyncRecord& s : sync.before_instruction(pc, st.before.gpr[3], st.before.lr)) {
      tt6.sync(s.type, s.sync_point, s.count);
      tt6e.sync(s.type, s.sync_point, s.count);
      run.syncs.push_back(TracedSync{run.steps.size(), s.type, s.sync_point, s.count});
    }

    t.hooked = &st.hooked;
    t.interrupt = -1;
    uc_err err = uc_emu_start(uc, pc, 0xFFFFFFFFu, 0, 1);
    t.hooked = nullptr;
    if (err != UC_ERR_OK) {
      run.error = std::string("emulation failed at ") + std::to_string(pc) + ": " + uc_strerror(err);
      break;
    }
    st.next_pc = r32(uc, UC_PPC_REG_PC);
    st.trapped = t.interrupt >= 0 && fmt::tt6::is_trap_word(st.opcode);
    st.syscall = fmt::tt6::is_syscall(st.opcode);

    const auto& shape = fmt::tt6::access_shape(st.opcode);
    const uint32_t ea = fmt::tt6::effective_address(st.opcode, shape, st.before.gpr);
    const uint32_t extra = shape.string_indexed ? st.before.xer
                           : shape.kind == fmt::tt6::AccessKind::Stream ? st.before.gpr[fmt::tt6::field_rb(st.opcode)]
                                                                       : 0;
    tt6.instruction(st.opcode, st.next_pc, ea, extra);
    tt6e.instruction(st.opcode, st.next_pc, ea, extra);
    if (st.trapped) tt6e.trap_return(st.next_pc);
    full.record(st.opcode, st.before);
    pc = st.next_pc;
    run.steps.push_back(std::move(st));
  }
  run.memory.note(run.steps.size(), snapshot(uc, run.memory));
  run.tt6 = std::move(tt6.bytes());
  run.tt6e = std::move(tt6e.bytes());
  run.full = std::move(full.bytes());
  uc_context_free(t.ctx);
  uc_close(uc);
  return run;
}

}  // namespace ttd::test
