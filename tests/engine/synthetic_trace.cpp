#include "synthetic_trace.h"

#include <random>

namespace ttd::test {

SynthTrace make_synthetic(uint64_t n, uint32_t threads, uint64_t seed, ArchId arch) {
  SynthTrace t;
  t.arch = arch;
  const ArchDesc& a = arch_desc(arch);
  std::mt19937_64 rng(seed);
  t.initial.push_back({SynthEffect::Map, 1, 0, 0x10000, std::vector<uint8_t>(0x4000, 0)});
  t.initial.push_back({SynthEffect::Write, 1, 0, 0x10010, {1, 2, 3, 4}});
  for (uint32_t th = 0; th < threads; ++th) t.initial.push_back({SynthEffect::Reg, 100 + th, 0, 0, {7, 0, 0, 0, 0, 0, 0, 0}});
  uint64_t counter = 0;
  for (uint64_t i = 0; i < n; ++i) {
    SynthStep s;
    uint64_t tid = 100 + (threads > 1 ? (i / 5) % threads : 0);
    uint64_t k = i % 7;
    s.info = fmt::StepInfo{tid, 1, 0x401000 + k * 4, 4, fmt::StepKind::Instruction};
    if (k == 6) s.info.pc = 0x402000 + (i / 7 % 3) * 8;  // some variety
    ++counter;
    uint16_t reg = uint16_t(rng() % 8);
    if (reg == a.pc_index) reg = 0;
    std::vector<uint8_t> v(8);
    for (int b = 0; b < 8; ++b) v[b] = uint8_t(counter >> (8 * b));
    s.effects.push_back({SynthEffect::Reg, tid, reg, 0, v});
    if (k == 2) s.effects.push_back({SynthEffect::Write, tid, 0, 0x10100 + (i % 64) * 8, {uint8_t(i), uint8_t(i >> 8)}});
    if (k == 4) s.effects.push_back({SynthEffect::Read, tid, 0, 0x10100 + (i % 64) * 8, std::vector<uint8_t>(2)});
    if (i == n / 2) s.effects.push_back({SynthEffect::Write, tid, 0, 0x13ff0, std::vector<uint8_t>(32, 0xab)});  // crosses a page
    t.steps.push_back(std::move(s));
  }
  return t;
}

namespace {
void play(const SynthEffect& e, fmt::TraceSink& sink) {
  switch (e.kind) {
    case SynthEffect::Reg: sink.reg(e.tid, e.reg, e.bytes); break;
    case SynthEffect::Write: sink.mem_write(1, e.addr, e.bytes); break;
    case SynthEffect::Read: sink.mem_read(1, e.addr, uint32_t(e.bytes.size()), {}); break;
    case SynthEffect::Map: sink.mem_map(1, e.addr, e.bytes.size(), 3, "synthetic"); break;
  }
}
}  // namespace

Status SynthReader::read(fmt::TraceSink& sink, const fmt::Progress&) {
  fmt::TraceInfo info;
  info.format = "synthetic";
  info.arch = t_->arch;
  info.caps.registers = info.caps.memory_values = info.caps.memory_accesses = true;
  sink.begin(info);
  for (const auto& e : t_->initial) play(e, sink);
  for (const auto& s : t_->steps) {
    sink.step(s.info);
    sink.attr("k", uint64_t(s.info.pc & 0xff));
    for (const auto& e : s.effects) play(e, sink);
  }
  sink.end();
  return {};
}

std::vector<uint64_t> reference_digests(const SynthTrace& t) {
  const ArchDesc& a = arch_desc(t.arch);
  MachineState st(a);
  auto apply = [&](const SynthEffect& e, uint64_t pid) {
    switch (e.kind) {
      case SynthEffect::Reg: st.thread(e.tid, pid).regs.set_bytes(e.reg, e.bytes); break;
      case SynthEffect::Write: st.process(1).memory.write(e.addr, e.bytes.data(), e.bytes.size()); break;
      case SynthEffect::Read: break;
      case SynthEffect::Map:
        st.process(1).regions.map(MemoryRegion{e.addr, e.bytes.size(), 3, "synthetic"});
        st.process(1).memory.fill(e.addr, e.bytes.size(), 0);
        break;
    }
  };
  for (const auto& e : t.initial) apply(e, 1);
  std::vector<uint64_t> out;
  for (size_t i = 0; i <= t.steps.size(); ++i) {
    MachineState at = st;
    if (i < t.steps.size()) at.thread(t.steps[i].info.tid, 1).regs.set_u64(a.pc_index, t.steps[i].info.pc);
    out.push_back(at.digest());
    if (i == t.steps.size()) break;
    const auto& s = t.steps[i];
    st.thread(s.info.tid, 1).regs.set_u64(a.pc_index, s.info.pc);
    for (const auto& e : s.effects) apply(e, 1);
    st.thread(s.info.tid, 1).regs.set_u64(a.pc_index, s.info.pc + s.info.size);
  }
  return out;
}

}  // namespace ttd::test
