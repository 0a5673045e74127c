#include "motion_program.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <random>

namespace ttd::test {

namespace {

enum class Op { Nop, Call, Ret, Jump };
struct Insn {
  Op op = Op::Nop;
  uint64_t target = 0;
};

constexpr uint64_t kF = kMotionCode + 0x100, kG = kMotionCode + 0x200;

void put32(std::vector<uint8_t>& code, uint64_t at, uint32_t w, bool big) {
  for (int i = 0; i < 4; ++i) code[at + i] = uint8_t(big ? w >> (24 - 8 * i) : w >> (8 * i));
}

// Encodes one instruction at pc; returns its size.
uint32_t encode(ArchId arch, std::vector<uint8_t>& code, uint64_t pc, const Insn& in) {
  uint64_t at = pc - kMotionCode;
  int64_t off = int64_t(in.target) - int64_t(pc);
  if (arch == ArchId::X86_64) {
    const uint8_t nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
    switch (in.op) {
      case Op::Nop: std::memcpy(&code[at], nop5, 5); return 5;
      case Op::Ret: code[at] = 0xc3; return 1;
      case Op::Call:
      case Op::Jump: {
        code[at] = in.op == Op::Call ? 0xe8 : 0xe9;
        put32(code, at + 1, uint32_t(int32_t(off - 5)), false);
        return 5;
      }
    }
  }
  bool big = arch == ArchId::Ppc32;
  uint32_t w = 0;
  if (arch == ArchId::AArch64) {
    uint32_t imm26 = uint32_t(off >> 2) & 0x3ffffff;
    w = in.op == Op::Nop ? 0xd503201f : in.op == Op::Ret ? 0xd65f03c0 : in.op == Op::Call ? 0x94000000 | imm26 : 0x14000000 | imm26;
  } else {  // ppc32: bl / blr / b
    uint32_t li = uint32_t(off) & 0x03fffffc;
    w = in.op == Op::Nop ? 0x60000000 : in.op == Op::Ret ? 0x4e800020 : in.op == Op::Call ? 0x48000001 | li : 0x48000000 | li;
  }
  put32(code, at, w, big);
  return 4;
}

struct Layout {
  std::map<uint64_t, Insn> insns;
  std::map<uint64_t, uint32_t> sizes;
  std::map<uint64_t, uint64_t> next;  // fall-through pc
  uint64_t m[6] = {}, f[3] = {}, g[4] = {};
};

Layout lay_out(ArchId arch, std::vector<uint8_t>& code) {
  Layout l;
  auto place = [&](uint64_t base, std::vector<Insn> body, uint64_t* pcs) {
    uint64_t pc = base;
    for (size_t i = 0; i < body.size(); ++i) {
      pcs[i] = pc;
      l.insns[pc] = body[i];
      uint32_t n = encode(arch, code, pc, body[i]);
      l.sizes[pc] = n;
      l.next[pc] = pc + n;
      pc += n;
    }
  };
  place(kMotionCode, {{Op::Nop}, {Op::Call, kF}, {Op::Nop}, {Op::Call, kG}, {Op::Nop}, {Op::Jump, kMotionCode}}, l.m);
  place(kF, {{Op::Nop}, {Op::Nop}, {Op::Ret}}, l.f);
  place(kG, {{Op::Nop}, {Op::Call, kF}, {Op::Nop}, {Op::Ret}}, l.g);
  return l;
}

struct ThreadSim {
  uint64_t tid = 0, pc = kMotionCode;
  std::vector<uint64_t> returns;
};

}  // namespace

std::vector<uint8_t> MotionProgram::data_before(uint64_t e, uint64_t addr, uint64_t len) const {
  std::vector<uint8_t> out(len, 0);
  for (uint64_t k = 0; k < e && k < steps.size(); ++k)
    for (const auto& a : steps[k].accesses)
      if (a.write)
        for (uint64_t i = 0; i < a.size; ++i)
          if (a.addr + i >= addr && a.addr + i < addr + len) out[a.addr + i - addr] = a.value[i];
  return out;
}

MotionProgram make_motion_program(ArchId arch, uint32_t threads, uint64_t iterations, uint64_t seed, bool code_in_trace) {
  MotionProgram p;
  p.arch = arch;
  p.code.assign(0x300, 0);
  Layout l = lay_out(arch, p.code);
  std::mt19937_64 rng(seed);
  auto bytes = [&](uint64_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = uint8_t(rng());
    return v;
  };
  std::vector<ThreadSim> sims;
  for (uint32_t t = 0; t < threads; ++t) sims.push_back({100 + t});
  // Each thread runs `iterations` loops of main; they take turns every 5 steps.
  const uint64_t per_thread = iterations * 16;
  for (uint64_t i = 0; i < per_thread * threads; ++i) {
    ThreadSim& th = sims[threads > 1 ? (i / 5) % threads : 0];
    MotionStep s;
    s.tid = th.tid;
    s.pc = th.pc;
    s.depth = int(th.returns.size());
    const Insn& in = l.insns.at(th.pc);
    uint64_t fall = l.next.at(th.pc);
    const uint64_t d = kMotionData;
    if (th.pc == l.f[0]) {
      uint64_t n = uint64_t(1) << (rng() % 4);
      s.accesses.push_back({d + rng() % 64, n, true, bytes(n)});
    } else if (th.pc == l.f[1]) {
      uint64_t n = uint64_t(1) << (rng() % 4);
      s.accesses.push_back({d + rng() % 64, n, false, {}});
    } else if (th.pc == l.m[2]) {
      s.accesses.push_back({d + rng() % 48, 16, true, bytes(16)});  // a memset
    } else if (th.pc == l.m[4]) {
      uint64_t a = d + rng() % 56;
      s.accesses.push_back({a, 4, true, bytes(4)});  // a pair store: two writes side by side
      s.accesses.push_back({a + 4, 4, true, bytes(4)});
    } else if (th.pc == l.g[2]) {
      s.accesses.push_back({d + rng() % 61, 3, true, bytes(3)});
    }
    switch (in.op) {
      case Op::Nop: th.pc = fall; break;
      case Op::Jump: th.pc = in.target; break;
      case Op::Call:
        s.call = true;
        th.returns.push_back(fall);
        th.pc = in.target;
        break;
      case Op::Ret:
        s.ret = true;
        th.pc = th.returns.back();
        th.returns.pop_back();
        break;
    }
    s.depth_after = int(th.returns.size());
    p.steps.push_back(std::move(s));
  }
  // The same stream for the engine.
  auto synth = std::make_shared<SynthTrace>();
  synth->arch = arch;
  synth->initial.push_back({SynthEffect::Map, 1, 0, kMotionData, std::vector<uint8_t>(0x1000, 0)});
  if (code_in_trace) {
    synth->initial.push_back({SynthEffect::Map, 1, 0, kMotionCode, std::vector<uint8_t>(0x1000, 0)});
    synth->initial.push_back({SynthEffect::Write, 1, 0, kMotionCode, p.code});
  }
  for (const auto& s : p.steps) {
    SynthStep ss;
    ss.info = fmt::StepInfo{s.tid, 1, s.pc, l.sizes.at(s.pc), fmt::StepKind::Instruction};
    for (const auto& a : s.accesses)
      ss.effects.push_back({a.write ? SynthEffect::Write : SynthEffect::Read, s.tid, 0, a.addr,
                            a.write ? a.value : std::vector<uint8_t>(a.size)});
    synth->steps.push_back(std::move(ss));
  }
  p.synth = synth;
  return p;
}

namespace {
template <class T>
void put(std::vector<uint8_t>& f, size_t at, T v, bool big) {
  for (size_t i = 0; i < sizeof(T); ++i) f[at + i] = uint8_t(big ? uint64_t(v) >> (8 * (sizeof(T) - 1 - i)) : uint64_t(v) >> (8 * i));
}
}  // namespace

void write_motion_elf(const MotionProgram& p, const std::string& path) {
  const bool elf32 = p.arch == ArchId::Ppc32, big = p.arch == ArchId::Ppc32;
  const uint16_t machine = p.arch == ArchId::Ppc32 ? EM_PPC : p.arch == ArchId::AArch64 ? EM_AARCH64 : EM_X86_64;
  std::vector<uint8_t> f(0x1000 + p.code.size(), 0);
  std::memcpy(f.data(), ELFMAG, SELFMAG);
  f[EI_CLASS] = elf32 ? ELFCLASS32 : ELFCLASS64;
  f[EI_DATA] = big ? ELFDATA2MSB : ELFDATA2LSB;
  f[EI_VERSION] = EV_CURRENT;
  put<uint16_t>(f, 16, ET_EXEC, big);
  put<uint16_t>(f, 18, machine, big);
  put<uint32_t>(f, 20, EV_CURRENT, big);
  if (elf32) {  // Elf32_Ehdr is 52 bytes, Elf32_Phdr 32
    put<uint32_t>(f, 24, uint32_t(kMotionCode), big);  // e_entry
    put<uint32_t>(f, 28, 52, big);                     // e_phoff
    put<uint16_t>(f, 40, 52, big);                     // e_ehsize
    put<uint16_t>(f, 42, 32, big);                     // e_phentsize
    put<uint16_t>(f, 44, 1, big);                      // e_phnum
    size_t ph = 52;
    put<uint32_t>(f, ph + 0, PT_LOAD, big);
    put<uint32_t>(f, ph + 4, 0x1000, big);  // p_offset
    put<uint32_t>(f, ph + 8, uint32_t(kMotionCode), big);
    put<uint32_t>(f, ph + 12, uint32_t(kMotionCode), big);
    put<uint32_t>(f, ph + 16, uint32_t(p.code.size()), big);
    put<uint32_t>(f, ph + 20, uint32_t(p.code.size()), big);
    put<uint32_t>(f, ph + 24, PF_R | PF_X, big);
    put<uint32_t>(f, ph + 28, 0x1000, big);
  } else {  // Elf64_Ehdr is 64 bytes, Elf64_Phdr 56
    put<uint64_t>(f, 24, kMotionCode, big);
    put<uint64_t>(f, 32, 64, big);
    put<uint16_t>(f, 52, 64, big);
    put<uint16_t>(f, 54, 56, big);
    put<uint16_t>(f, 56, 1, big);
    size_t ph = 64;
    put<uint32_t>(f, ph + 0, PT_LOAD, big);
    put<uint32_t>(f, ph + 4, PF_R | PF_X, big);
    put<uint64_t>(f, ph + 8, 0x1000, big);
    put<uint64_t>(f, ph + 16, kMotionCode, big);
    put<uint64_t>(f, ph + 24, kMotionCode, big);
    put<uint64_t>(f, ph + 32, p.code.size(), big);
    put<uint64_t>(f, ph + 40, p.code.size(), big);
    put<uint64_t>(f, ph + 48, 0x1000, big);
  }
  std::memcpy(f.data() + 0x1000, p.code.data(), p.code.size());
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(f.data()), std::streamsize(f.size()));
}

}  // namespace ttd::test
