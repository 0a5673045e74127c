#include "engine/diff/divergence_detail.h"

#include <capstone/capstone.h>

#include <algorithm>
#include <cstdio>

#include "engine/cursor.h"
#include "engine/program_image.h"

namespace ttd::diff {

namespace {

std::string hex_number(std::span<const uint8_t> b, Endian e) {
  static const char* kHex = "0123456789abcdef";
  std::string s = "0x";
  for (size_t i = 0; i < b.size(); ++i) {
    uint8_t v = e == Endian::Little ? b[b.size() - 1 - i] : b[i];
    s.push_back(kHex[v >> 4]);
    s.push_back(kHex[v & 15]);
  }
  return s;
}

std::string hex_bytes(const uint8_t* p, size_t n) {
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s.push_back(kHex[p[i] >> 4]);
    s.push_back(kHex[p[i] & 15]);
  }
  return s;
}

// The arch register a Capstone register names: itself, or on x86-64 the
// 64-bit register a 32/16-bit one is part of (eax -> rax, r8d -> r8).
std::optional<uint16_t> arch_register(const ArchDesc& arch, csh h, unsigned cs_reg) {
  for (uint16_t i = 0; i < arch.regs.size(); ++i)
    if (arch.regs[i].capstone_id == int(cs_reg)) return i;
  const char* n = cs_reg_name(h, cs_reg);
  if (!n) return std::nullopt;
  std::string name = n;
  if (auto r = arch.find(name)) return r;
  if (arch.id == ArchId::X86_64) {
    if (name.size() == 3 && name[0] == 'e') return arch.find("r" + name.substr(1));
    if (name.size() >= 3 && name[0] == 'r' && (name.back() == 'd' || name.back() == 'w' || name.back() == 'b'))
      return arch.find(name.substr(0, name.size() - 1));
  }
  return std::nullopt;
}

struct Decoded {
  std::string text;
  std::vector<uint16_t> reads;  // arch registers read, pc excluded
};

std::vector<uint8_t> code_at(const Cursor& c, uint64_t pc, uint64_t pid) {
  uint8_t buf[16], valid[16];
  size_t n = 0;
  if (const ProcessState* p = c.state().find_process(pid)) {
    p->memory.read(pc, buf, valid, sizeof buf);
    while (n < sizeof buf && valid[n]) ++n;
  }
  if (n == 0 && c.trace().program()) n = c.trace().program()->read(pc, buf, sizeof buf);
  return std::vector<uint8_t>(buf, buf + n);
}

Decoded decode(const ArchDesc& arch, uint64_t pc, const std::vector<uint8_t>& code) {
  Decoded d;
  csh h;
  if (code.empty() || cs_open(cs_arch(arch.cs_arch), cs_mode(arch.cs_mode), &h) != CS_ERR_OK) return d;
  cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
  cs_insn* in = nullptr;
  if (cs_disasm(h, code.data(), code.size(), pc, 1, &in) == 1) {
    d.text = std::string(in->mnemonic) + (in->op_str[0] ? " " : "") + in->op_str;
    cs_regs r, w;
    uint8_t rc = 0, wc = 0;
    if (cs_regs_access(h, in, r, &rc, w, &wc) == CS_ERR_OK)
      for (uint8_t i = 0; i < rc; ++i)
        if (auto k = arch_register(arch, h, r[i]); k && *k != arch.pc_index &&
                                                   std::find(d.reads.begin(), d.reads.end(), *k) == d.reads.end())
          d.reads.push_back(*k);
    cs_free(in, 1);
  }
  cs_close(&h);
  return d;
}

std::optional<StepRecord> step_at(const Trace& t, uint64_t eid) {
  std::optional<StepRecord> out;
  (void)t.for_each_step(eid, eid + 1, [&](const StepRecord& r) {
    out = r;
    return false;
  });
  return out;
}

std::optional<std::string> reg_value(const Cursor& c, uint64_t tid, uint16_t reg) {
  const ThreadState* th = c.state().find_thread(tid);
  if (!th || !th->regs.valid(reg)) return std::nullopt;
  return hex_number(th->regs.bytes(reg), c.trace().arch().endian);
}

// The value a read access saw: from the step when the trace recorded it,
// else from memory before the step.
std::optional<std::string> read_value(const Cursor& c, uint64_t pid, const StepRecord::MemAccess& m) {
  if (!m.value.empty()) return hex_bytes(m.value.data(), m.value.size());
  const ProcessState* p = c.state().find_process(pid);
  if (!p || m.size > 4096) return std::nullopt;
  std::vector<uint8_t> buf(m.size), valid(m.size);
  p->memory.read(m.addr, buf.data(), valid.data(), m.size);
  if (std::find(valid.begin(), valid.end(), 0) != valid.end()) return std::nullopt;
  return hex_bytes(buf.data(), buf.size());
}

Result<InstructionDelta> explain_step(Cursor& ca, Cursor& cb, uint64_t eid_a, uint64_t eid_b, bool& reads_flags) {
  InstructionDelta d;
  d.eid_a = eid_a, d.eid_b = eid_b;
  if (auto s = ca.seek(eid_a); !s) return s.error();
  if (auto s = cb.seek(eid_b); !s) return s.error();
  auto sa = step_at(ca.trace(), eid_a), sb = step_at(cb.trace(), eid_b);
  if (!sa || !sb) return make_error("diff", "cannot decode step " + std::to_string(eid_a));
  const ArchDesc& arch = ca.trace().arch();
  d.pc = sa->info.pc;
  Decoded dec = decode(arch, d.pc, code_at(ca, d.pc, sa->info.pid));
  d.instruction = dec.text;
  reads_flags = false;
  for (uint16_t r : dec.reads) {
    const std::string& name = arch.regs[r].name;
    if (name == "eflags" || name == "cpsr") reads_flags = true;
    auto va = reg_value(ca, sa->info.tid, r), vb = reg_value(cb, sb->info.tid, r);
    if (va != vb) d.inputs.push_back({name, va, vb, r, std::nullopt, 0});
  }
  size_t n = std::max(sa->mem.size(), sb->mem.size());
  for (size_t i = 0; i < n; ++i) {
    const StepRecord::MemAccess* ma = i < sa->mem.size() ? &sa->mem[i] : nullptr;
    const StepRecord::MemAccess* mb = i < sb->mem.size() ? &sb->mem[i] : nullptr;
    if ((ma && ma->write) || (mb && mb->write)) continue;
    std::optional<std::string> va = ma ? read_value(ca, sa->info.pid, *ma) : std::nullopt;
    std::optional<std::string> vb = mb ? read_value(cb, sb->info.pid, *mb) : std::nullopt;
    if (ma && mb && ma->addr == mb->addr && va == vb) continue;
    char where[64];
    const auto* m = ma ? ma : mb;
    std::snprintf(where, sizeof where, "[0x%llx+%u]", (unsigned long long)m->addr, m->size);
    std::string w = where;
    if (ma && mb && ma->addr != mb->addr) {
      std::snprintf(where, sizeof where, " / [0x%llx+%u]", (unsigned long long)mb->addr, mb->size);
      w += where;
    }
    ValueDelta v{w, va, vb, std::nullopt, std::nullopt, 0};
    if (ma && mb && ma->addr == mb->addr && ma->size == mb->size) v.mem_addr = ma->addr, v.mem_len = ma->size;
    d.inputs.push_back(std::move(v));
  }
  return d;
}

// The latest step of `tid` in [from, before) that wrote the flags register.
std::optional<uint64_t> last_flags_write(const Trace& t, uint64_t tid, uint64_t from, uint64_t before) {
  const ArchDesc& arch = t.arch();
  auto flags = arch.find("eflags");
  if (!flags) flags = arch.find("cpsr");
  if (!flags) return std::nullopt;
  std::optional<uint64_t> last;
  (void)t.for_each_step(from, before, [&](const StepRecord& r) {
    if (r.info.tid == tid)
      for (const auto& g : r.regs)
        if (g.reg == *flags) last = r.eid;
    return true;
  });
  return last;
}

}  // namespace

Result<BranchExplanation> explain_branch(std::shared_ptr<const Trace> a, std::shared_ptr<const Trace> b,
                                         uint64_t eid_a, uint64_t eid_b, uint64_t lookback) {
  Cursor ca(a), cb(b);
  bool reads_flags = false;
  auto br = explain_step(ca, cb, eid_a, eid_b, reads_flags);
  if (!br) return br.error();
  BranchExplanation out{*br, std::nullopt};
  if (!reads_flags) return out;
  // The runs took the same path up to the branch, so the setter sits at
  // the same distance before it in both; a setter that left the flags as
  // they were records no write in that run, so both runs are searched.
  auto sa = step_at(*a, eid_a);
  auto sb = step_at(*b, eid_b);
  if (!sa || !sb) return out;
  uint64_t back = std::min({lookback, eid_a, eid_b});
  auto fa = last_flags_write(*a, sa->info.tid, eid_a - back, eid_a);
  auto fb = last_flags_write(*b, sb->info.tid, eid_b - back, eid_b);
  std::optional<uint64_t> dist;
  if (fa) dist = eid_a - *fa;
  if (fb && (!dist || eid_b - *fb < *dist)) dist = eid_b - *fb;
  if (!dist) return out;
  bool unused = false;
  auto setter = explain_step(ca, cb, eid_a - *dist, eid_b - *dist, unused);
  if (!setter) return setter.error();
  out.flags_set_by = *setter;
  return out;
}

}  // namespace ttd::diff
