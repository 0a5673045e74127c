#include "formats/umtrace/testing/x86_local_context.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "formats/umtrace/testing/x86_register_catalog.h"

namespace ttd::fmt::umtrace {

namespace {

struct ByteRange {
  uint32_t lo = ~0u, hi = 0;
  void add(uint32_t l, uint32_t h) { lo = std::min(lo, l), hi = std::max(hi, h); }
};

// Accesses to one location, merged: a read, a write, or both (read-modify-write).
struct MemGroup {
  uint64_t addr = 0;
  uint32_t size = 0;
  bool read = false, write = false;
  std::vector<uint8_t> read_value, before_write, after_write;
  uint16_t name = 0;
};

// Condition code of a cmovcc / jcc / setcc mnemonic against rflags.
bool condition_holds(const std::string& cc, uint64_t f) {
  const bool CF = f & 1, PF = f & 4, ZF = f & 0x40, SF = f & 0x80, OF = f & 0x800;
  if (cc == "o") return OF;
  if (cc == "no") return !OF;
  if (cc == "b" || cc == "c" || cc == "nae") return CF;
  if (cc == "ae" || cc == "nb" || cc == "nc") return !CF;
  if (cc == "e" || cc == "z") return ZF;
  if (cc == "ne" || cc == "nz") return !ZF;
  if (cc == "be" || cc == "na") return CF || ZF;
  if (cc == "a" || cc == "nbe") return !CF && !ZF;
  if (cc == "s") return SF;
  if (cc == "ns") return !SF;
  if (cc == "p" || cc == "pe") return PF;
  if (cc == "np" || cc == "po") return !PF;
  if (cc == "l" || cc == "nge") return SF != OF;
  if (cc == "ge" || cc == "nl") return SF == OF;
  if (cc == "le" || cc == "ng") return ZF || SF != OF;
  if (cc == "g" || cc == "nle") return !ZF && SF == OF;
  return true;  // unknown: assume it ran
}

}  // namespace

Result<std::unique_ptr<X86LocalContextBuilder>> X86LocalContextBuilder::create(bool mode64) {
  auto d = X86InstructionDecoder::create(mode64);
  if (!d) return d.error();
  std::unique_ptr<X86LocalContextBuilder> b(new X86LocalContextBuilder());
  b->decoder_ = std::move(*d);
  b->mode64_ = mode64;
  return b;
}

Result<BuiltInstruction> X86LocalContextBuilder::build(const ExecutedX86& e) {
  const X86RegisterCatalog& cat = X86RegisterCatalog::instance();
  const bool m64 = mode64_;
  if (e.dump_before.size() != cat.dump_size() || e.dump_after.size() != cat.dump_size())
    return make_error("umtrace writer", "register dumps must be " + std::to_string(cat.dump_size()) + " bytes");
  auto decoded = decoder_->decode(e.address, e.code);
  if (!decoded) return decoded.error();
  const X86Instruction& ins = **decoded;

  auto bytes_of = [&](std::span<const uint8_t> dump, uint16_t id) { return dump.data() + cat.dump_offset(id, m64); };
  auto value_of = [&](std::span<const uint8_t> dump, uint16_t id) {
    uint64_t v = 0;
    std::memcpy(&v, bytes_of(dump, id), std::min<size_t>(cat.entry(id).size, 8));
    return v;
  };
  auto in_dump = [&](uint16_t id) { return id && cat.present(id, m64) && cat.dump_offset(id, m64) != 0xffff; };
  const uint16_t sp_family = cat.entry(*cat.find("SP", m64)).family;
  const uint16_t ip_family = cat.entry(*cat.find("IP", m64)).family;
  const uint16_t flags_reg = *cat.find(m64 ? "RFLAGS" : "EFLAGS", m64);
  const uint64_t addr_mask = ins.addr_size >= 8 ? ~0ull : (1ull << (8 * ins.addr_size)) - 1;
  const uint8_t addr_width = m64 ? 8 : 4;

  // ---- memory: merge the observed accesses into locations ----
  std::vector<MemGroup> groups;
  for (const ObservedAccess& a : e.accesses) {
    const std::vector<uint8_t>& v = a.before;
    if (!groups.empty()) {
      MemGroup& g = groups.back();
      if (g.write == a.write && g.read == !a.write && g.addr + g.size == a.addr) {
        g.size += uint32_t(v.size());
        (a.write ? g.before_write : g.read_value).insert((a.write ? g.before_write : g.read_value).end(), v.begin(), v.end());
        if (a.write) g.after_write.insert(g.after_write.end(), a.after.begin(), a.after.end());
        continue;
      }
    }
    MemGroup g;
    g.addr = a.addr;
    g.size = uint32_t(v.size());
    g.read = !a.write;
    g.write = a.write;
    (a.write ? g.before_write : g.read_value) = v;
    if (a.write) g.after_write = a.after;
    groups.push_back(std::move(g));
  }
  // A write to a location read before is one read-write operand.
  for (size_t i = 0; i < groups.size(); ++i) {
    if (!groups[i].write || groups[i].read) continue;
    for (size_t j = 0; j < i; ++j) {
      if (groups[j].read && !groups[j].write && groups[j].addr == groups[i].addr && groups[j].size == groups[i].size) {
        groups[j].write = true;
        groups[j].before_write = std::move(groups[i].before_write);
        groups[j].after_write = std::move(groups[i].after_write);
        groups.erase(groups.begin() + long(i--));
        break;
      }
    }
  }

  // Memory operands in order: MEM0, MEM1 (lea's is an address generator).
  auto operand_address = [&](const X86Operand& o) {
    uint64_t a = uint64_t(o.disp);
    if (o.rip_relative) a += e.address + ins.code.size();
    else if (o.base) a += value_of(e.dump_before, o.base) & (cat.entry(o.base).size >= 8 ? ~0ull : (1ull << (8 * cat.entry(o.base).size)) - 1);
    if (o.index) a += (value_of(e.dump_before, o.index) & (cat.entry(o.index).size >= 8 ? ~0ull : (1ull << (8 * cat.entry(o.index).size)) - 1)) * o.scale;
    if (o.seg && m64) {
      const std::string& s = cat.entry(o.seg).name;
      if (s == "FS" || s == "GS") a += value_of(e.dump_before, *cat.find(s == "FS" ? "FSBASE" : "GSBASE", m64));
    }
    return a & addr_mask;
  };
  std::vector<int> operand_group(ins.operands.size(), -1);
  int mem_index = 0;
  bool used[2] = {false, false};
  for (size_t k = 0; k < ins.operands.size(); ++k) {
    const X86Operand& o = ins.operands[k];
    if (o.kind != X86Operand::Kind::Memory || ins.lea) continue;
    const uint64_t a = operand_address(o);
    for (size_t g = 0; g < groups.size(); ++g)
      if (groups[g].name == 0 && groups[g].addr == a && mem_index < 2) {
        groups[g].name = mem_index == 0 ? kRegMem0 : kRegMem1;
        used[mem_index] = true;
        operand_group[k] = int(g);
        break;
      }
    ++mem_index;
  }
  bool touches_stack = false;
  for (uint16_t r : ins.reads) touches_stack |= cat.entry(r).family == sp_family;
  for (uint16_t r : ins.writes) touches_stack |= cat.entry(r).family == sp_family;
  for (MemGroup& g : groups) {
    if (g.name) continue;
    if (touches_stack) g.name = *cat.find(g.write ? "STACKPUSH" : "STACKPOP", m64);
    else if (!used[0]) g.name = kRegMem0, used[0] = true;
    else if (!used[1]) g.name = kRegMem1, used[1] = true;
    else return make_error("umtrace writer", "instruction at " + std::to_string(e.address) + " (" + ins.text +
                                                 ") touched more memory locations than it has memory operands");
  }

  // ---- registers: families read and written, with the bytes touched ----
  std::map<uint16_t, ByteRange> reads, writes;  // family -> range within its largest register
  std::vector<uint16_t> read_order, write_order;
  auto note = [&](std::map<uint16_t, ByteRange>& m, std::vector<uint16_t>& order, uint16_t id) {
    if (!in_dump(id) && !cat.present(id, m64)) return;
    const auto& en = cat.entry(id);
    if (en.family == ip_family || en.pseudo) return;
    if (!m.count(en.family)) order.push_back(en.family);
    m[en.family].add(en.offset, en.offset + en.size);
  };
  for (uint16_t r : ins.reads) note(reads, read_order, r);
  for (uint16_t r : ins.writes) note(writes, write_order, r);
  for (const X86Operand& o : ins.operands) {
    if (o.kind == X86Operand::Kind::Register) {
      if (o.read) note(reads, read_order, o.reg);
      if (o.write) note(writes, write_order, o.reg);
    } else if (o.kind == X86Operand::Kind::Memory) {
      if (o.base) note(reads, read_order, o.base);
      if (o.index) note(reads, read_order, o.index);
      if (o.seg && m64 && (cat.entry(o.seg).name == "FS" || cat.entry(o.seg).name == "GS"))
        note(reads, read_order, *cat.find(cat.entry(o.seg).name == "FS" ? "FSBASE" : "GSBASE", m64));
    }
  }
  // Changes the decoder did not list: an output of the whole register.
  for (const auto& d : cat.dump_registers(m64)) {
    const auto& en = cat.entry(d.id);
    if (en.family == ip_family || writes.count(en.family)) continue;
    if (std::memcmp(e.dump_before.data() + d.offset, e.dump_after.data() + d.offset, d.size) != 0)
      note(writes, write_order, d.id);
  }

  // The register written for each family: the smallest covering what was
  // written, widened to the whole register if that would not explain the
  // new value (a 32-bit write in 64-bit code clears the upper half).
  std::map<uint16_t, uint16_t> write_member;
  for (uint16_t fam : write_order) {
    const ByteRange r = writes[fam];
    auto m = cat.covering(fam, r.lo, r.hi, m64);
    const uint16_t owner = cat.largest(fam, m64);
    if (!in_dump(owner)) continue;
    uint16_t member = m && in_dump(*m) ? *m : owner;
    const uint32_t osize = cat.entry(owner).size, moff = cat.entry(member).offset - cat.entry(owner).offset;
    std::vector<uint8_t> sim(bytes_of(e.dump_before, owner), bytes_of(e.dump_before, owner) + osize);
    std::memcpy(sim.data() + moff, bytes_of(e.dump_after, member), cat.entry(member).size);
    if (m64 && cat.is_general_purpose(member) && cat.entry(member).size == 4 && moff == 0)
      std::fill(sim.begin() + 4, sim.end(), 0);
    if (std::memcmp(sim.data(), bytes_of(e.dump_after, owner), osize) != 0) member = owner;
    write_member[fam] = member;
  }

  // ---- slots, in the three groups ----
  DecodedInstructionSpec d;
  std::vector<uint8_t> lc;
  auto add_reg_slot = [&](uint16_t id, std::span<const uint8_t> dump) {
    LcSlotSpec s{id, cat.entry(id).family, cat.entry(id).size, uint16_t(lc.size()), 0};
    lc.insert(lc.end(), bytes_of(dump, id), bytes_of(dump, id) + s.value_size);
    d.slots.push_back(s);
    return uint8_t(d.slots.size() - 1);
  };
  auto add_mem_slot = [&](const MemGroup& g, const std::vector<uint8_t>& value) {
    LcSlotSpec s{g.name, g.name, uint16_t(g.size), uint16_t(lc.size()), addr_width};
    uint8_t a[8];
    store_le64(a, g.addr);
    lc.insert(lc.end(), a, a + 8);
    lc.insert(lc.end(), value.begin(), value.end());
    d.slots.push_back(s);
    return uint8_t(d.slots.size() - 1);
  };
  std::map<uint16_t, uint8_t> read_slot, preout_slot, after_slot;  // family -> slot
  std::vector<uint8_t> group_before(groups.size(), kSlotNA), group_after(groups.size(), kSlotNA);
  for (uint16_t fam : read_order) {
    const ByteRange r = reads[fam];
    auto m = cat.covering(fam, r.lo, r.hi, m64);
    if (!m || !in_dump(*m)) m = cat.largest(fam, m64);
    if (in_dump(*m)) read_slot[fam] = add_reg_slot(*m, e.dump_before);
  }
  for (size_t g = 0; g < groups.size(); ++g)
    if (groups[g].read) group_before[g] = add_mem_slot(groups[g], groups[g].read_value);
  uint8_t agen_slot = kSlotNA;
  if (ins.lea)
    for (const X86Operand& o : ins.operands)
      if (o.kind == X86Operand::Kind::Memory) {
        const uint64_t a = operand_address(o);
        d.slots.push_back(LcSlotSpec{kRegAgen, kRegAgen, addr_width, uint16_t(lc.size()), 0});
        for (int i = 0; i < addr_width; ++i) lc.push_back(uint8_t(a >> (8 * i)));
        agen_slot = uint8_t(d.slots.size() - 1);
      }
  d.first_out_slot = uint8_t(d.slots.size());
  for (uint16_t fam : write_order)
    if (write_member.count(fam) && !reads.count(fam)) preout_slot[fam] = add_reg_slot(write_member[fam], e.dump_before);
  for (size_t g = 0; g < groups.size(); ++g)
    if (groups[g].write && !groups[g].read) group_before[g] = add_mem_slot(groups[g], groups[g].before_write);
  d.first_after_slot = uint8_t(d.slots.size());
  for (uint16_t fam : write_order)
    if (write_member.count(fam)) after_slot[fam] = add_reg_slot(write_member[fam], e.dump_after);
  // Branches name the instruction pointer as an output, as XED does: the
  // reader learns where the thread goes next even if it is switched out.
  const uint16_t ip_reg = *cat.find(m64 ? "RIP" : "EIP", m64);
  if (ins.branch || value_of(e.dump_after, ip_reg) != e.address + ins.code.size()) add_reg_slot(ip_reg, e.dump_after);
  for (size_t g = 0; g < groups.size(); ++g)
    if (groups[g].write) group_after[g] = add_mem_slot(groups[g], groups[g].after_write);
  if (d.slots.size() > 0xfc) return make_error("umtrace writer", ins.text + ": too many local context slots");
  d.lc_size = uint16_t(lc.size());

  // ---- explicit operands, memory phrase, constants ----
  bool has_mem = false;
  for (const X86Operand& o : ins.operands) has_mem |= o.kind == X86Operand::Kind::Memory;
  int next_const = has_mem ? 1 : 0;  // ConstSlot[0] is the phrase offset when there is a memory operand
  int mem_seen = 0;
  for (size_t k = 0; k < ins.operands.size() && d.operands.size() < DecodedLayout::kMaxExpOper; ++k) {
    const X86Operand& o = ins.operands[k];
    ExpOperandSpec x;
    x.size = o.size;
    x.flags = uint8_t((o.read ? 1 : 0) | (o.write ? 2 : 0));
    if (o.kind == X86Operand::Kind::Register) {
      const uint16_t fam = cat.entry(o.reg).family;
      x.reg = o.reg;
      auto slot_off = [&](uint8_t slot) {
        return uint8_t(cat.entry(o.reg).offset - std::min(cat.entry(o.reg).offset, cat.entry(d.slots[slot].reg).offset));
      };
      if (read_slot.count(fam)) x.before_slot = read_slot[fam];
      else if (preout_slot.count(fam)) x.before_slot = preout_slot[fam];
      else if (after_slot.count(fam)) x.before_slot = after_slot[fam];
      if (o.write && after_slot.count(fam)) x.after_slot = after_slot[fam];
      if (x.before_slot != kSlotNA) x.before_offset = slot_off(x.before_slot);
      if (x.after_slot != kSlotNA) x.after_offset = slot_off(x.after_slot);
    } else if (o.kind == X86Operand::Kind::Immediate) {
      x.reg = kRegInvalid;
      if (next_const < 2) {
        d.const_slot[next_const] = o.imm;
        x.before_slot = next_const == 0 ? kSlotImm0 : kSlotImm1;
        ++next_const;
      }
    } else {
      const bool first = mem_seen++ == 0;
      if (ins.lea) {
        x.reg = kRegAgen;
        x.before_slot = agen_slot;
      } else if (operand_group[k] >= 0) {
        const size_t g = size_t(operand_group[k]);
        x.reg = groups[g].name;
        x.before_slot = group_before[g];
        x.after_slot = group_after[g];
        x.before_offset = x.after_offset = LcSlotLayout::kAddressBytes;
      } else {
        x.reg = first ? kRegMem0 : kRegMem1;
      }
      auto reg_slot = [&](uint16_t id) {
        return id && read_slot.count(cat.entry(id).family) ? read_slot[cat.entry(id).family] : kSlotNA;
      };
      if (first) {
        d.mem0_base = reg_slot(o.base);
        d.mem0_index = reg_slot(o.index);
        d.mem0_scale = o.index ? o.scale : 0;
        if (o.seg && m64 && (cat.entry(o.seg).name == "FS" || cat.entry(o.seg).name == "GS"))
          d.mem0_seg = reg_slot(*cat.find(cat.entry(o.seg).name == "FS" ? "FSBASE" : "GSBASE", m64));
        // IP-relative offsets are stored as absolute constants (section 7.2.2).
        d.const_slot[0] = o.rip_relative ? e.address + ins.code.size() + uint64_t(o.disp) : uint64_t(o.disp);
      } else {
        d.mem1_base = reg_slot(o.base);
      }
    }
    d.operands.push_back(x);
  }

  // ---- instruction-level fields ----
  d.category = uint16_t(ins.category);
  d.mnemonic = uint16_t(ins.id);
  bool reads_mem = false, writes_mem = false;
  for (const MemGroup& g : groups) reads_mem |= g.read, writes_mem |= g.write;
  d.flags = uint8_t((ins.rep ? 0x01 : 0) | (ins.repne ? 0x02 : 0) | (ins.lock ? 0x04 : 0) |
                    (reads_mem ? 0x10 : 0) | (writes_mem ? 0x20 : 0));
  d.eff_addr_size = ins.addr_size;
  d.eff_oper_size = m64 ? 8 : 4;
  for (const X86Operand& o : ins.operands)
    if (o.kind == X86Operand::Kind::Register) {
      d.eff_oper_size = uint8_t(std::min<uint16_t>(o.size, 8));
      if (m64 && o.write && o.size == 4 && cat.is_general_purpose(o.reg)) d.flags |= 0x08;
      break;
    }

  BuiltInstruction out;
  out.spec.type = ins.ins_type;
  out.spec.cs64 = m64;
  out.spec.module_id = e.module_id;
  out.spec.address = e.address;
  out.spec.code = ins.code;
  out.spec.disasm = ins.text;
  out.spec.decoded = std::move(d);
  out.lc = std::move(lc);
  out.exec_flags = m64 ? kFlag64Bit : 0;

  // Conditions that were false (section 6.4, flag 0x04).
  const uint64_t rflags = value_of(e.dump_before, flags_reg);
  bool executed = true;
  if (ins.conditional_move) executed = condition_holds(ins.mnemonic.substr(4), rflags);
  if (ins.conditional_jump) {
    const uint16_t ip = *cat.find(m64 ? "RIP" : "EIP", m64);
    executed = value_of(e.dump_after, ip) != e.address + ins.code.size();
  }
  if (ins.rep || ins.repne) {
    const uint16_t count = *cat.find(ins.addr_size == 8 ? "RCX" : "ECX", m64);
    executed = (value_of(e.dump_before, count) & addr_mask) != 0;
  }
  if (!executed) out.exec_flags |= kFlagNotExecuted;
  return out;
}

}  // namespace ttd::fmt::umtrace
