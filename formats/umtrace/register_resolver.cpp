#include "formats/umtrace/register_resolver.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

namespace {

// XED spells a few registers differently from gdb's tables.
std::optional<uint16_t> gdb_register(const ArchDesc& a, const std::string& name) {
  static const std::pair<std::string_view, std::string_view> kXedSpellings[] = {
      {"fsbase", "fs_base"},     {"gsbase", "gs_base"},     {"x87control", "fctrl"}, {"x87status", "fstat"},
      {"x87tag", "ftag"},        {"x87opcode", "fop"},      {"x87lastcs", "fiseg"},  {"x87lastip", "fioff"},
      {"x87lastds", "foseg"},    {"x87lastdp", "fooff"},
  };
  if (name.empty()) return std::nullopt;
  for (const auto& [xed, gdb] : kXedSpellings)
    if (name == xed) return a.find(gdb);
  // gdb's tables stop at xmm: ymmN and zmmN hold xmmN in their low bytes.
  if (name.size() > 3 && (name.compare(0, 3, "ymm") == 0 || name.compare(0, 3, "zmm") == 0))
    return a.find("xmm" + name.substr(3));
  return a.find(name);
}

bool is_high_byte_name(const std::string& n) { return n == "ah" || n == "bh" || n == "ch" || n == "dh"; }

}  // namespace

Result<RegisterResolver> RegisterResolver::build(const ContextMap& map, const ArchDesc& arch) {
  RegisterResolver r;
  r.arch_ = &arch;
  r.dump_size_ = map.dump_size();
  r.selector_like_.assign(arch.regs.size(), false);
  static const std::string_view kSixteenBitInWideSlot[] = {"cs",    "ss",    "ds",    "es",    "fs",    "gs",
                                                           "fctrl", "fstat", "ftag",  "fiseg", "foseg", "fop"};
  for (std::string_view n : kSixteenBitInWideSlot)
    if (auto i = arch.find(n)) r.selector_like_[*i] = true;

  size_t named = 0;
  for (uint16_t id = 0; id < map.elem_count(); ++id) {
    r.t32_[id] = r.resolve(map, id, false, 0);
    r.t64_[id] = r.resolve(map, id, true, 0);
    if (r.t32_[id].role == RegRole::Register || r.t64_[id].role == RegRole::Register) ++named;
  }
  if (named == 0)
    return make_error_at(map.path(), ContextMapLayout::kStrName,
                         "the context map names no register of " + arch.name + " (" +
                             std::to_string(map.elem_count()) + " entries; expected names such as rax, eax, xmm0)");
  r.dump32_ = r.plan_dump(map, false);
  r.dump64_ = r.plan_dump(map, true);
  return r;
}

const RegTarget& RegisterResolver::target(uint16_t id, bool mode64) const {
  static const RegTarget kNone{};
  if (id >= ContextMap::kEntries) return kNone;
  return (mode64 ? t64_ : t32_)[id];
}

bool RegisterResolver::zero_extends(const RegTarget& t, uint32_t size, bool mode64) const {
  if (t.role != RegRole::Register || t.offset != 0) return false;
  const RegisterDesc& d = arch_->regs[t.reg];
  if (size >= d.bytes()) return false;
  if (selector_like_[t.reg]) return true;
  // Intel SDM vol. 1, 3.4.1.1: 32-bit operands in 64-bit mode zero-extend
  // to the 64-bit general-purpose register.
  return mode64 && arch_->id == ArchId::X86_64 && size == 4 && d.bits == 64 && d.group == "general" &&
         t.reg != arch_->pc_index;
}

RegTarget RegisterResolver::resolve(const ContextMap& map, uint16_t id, bool mode64, int depth) const {
  const std::string& name = map.name(id);
  if (name.empty()) return {};
  if (name == "stackpush" || name == "stackpop") return {RegRole::StackMemory, 0, 0};
  auto as_target = [&](uint16_t reg, uint32_t offset) -> RegTarget {
    if (offset >= arch_->regs[reg].bytes()) return {};
    return {reg == arch_->pc_index ? RegRole::ProgramCounter : RegRole::Register, reg, uint8_t(offset)};
  };
  if (auto g = gdb_register(*arch_, name)) return as_target(*g, 0);

  // Byte offset of id inside an enclosing register: from the dump layout
  // (either mode), else the x86 high-byte rule.
  auto offset_in = [&](uint16_t outer) -> uint32_t {
    for (bool m : {mode64, !mode64}) {
      const ContextRegInfo &a = map.info(id, m), &b = map.info(outer, m);
      if (a.in_dump() && b.in_dump() && a.offset >= b.offset && a.offset < b.offset + b.size)
        return a.offset - b.offset;
    }
    return is_high_byte_name(name) ? 1 : 0;
  };

  const int16_t enc = map.info(id, mode64).eff_largest;
  if (enc >= 0 && uint16_t(enc) != id && depth < 4) {
    RegTarget t = resolve(map, uint16_t(enc), mode64, depth + 1);
    if (t.role == RegRole::Register || t.role == RegRole::ProgramCounter)
      return as_target(t.reg, t.offset + offset_in(uint16_t(enc)));
  }
  // The common-name group: al, ah, ax, eax, rax all share "ax".
  const int16_t common = map.common_name(id);
  if (common < 0) return {};
  std::optional<uint16_t> best_id, best_reg;
  for (uint16_t j = 0; j < map.elem_count(); ++j) {
    if (j == id || map.common_name(j) != common) continue;
    auto g = gdb_register(*arch_, map.name(j));
    if (!g) continue;
    if (!best_reg || arch_->regs[*g].bits > arch_->regs[*best_reg].bits) best_id = j, best_reg = g;
  }
  if (!best_reg) return {};
  return as_target(*best_reg, offset_in(*best_id));
}

std::vector<DumpPiece> RegisterResolver::plan_dump(const ContextMap& map, bool mode64) const {
  struct Candidate {
    uint16_t id;
    ContextRegInfo info;
    RegTarget t;
  };
  std::vector<Candidate> cands;
  for (uint16_t id = 0; id < map.elem_count(); ++id) {
    const ContextRegInfo& info = map.info(id, mode64);
    const RegTarget& t = target(id, mode64);
    if (info.in_dump() && (t.role == RegRole::Register || t.role == RegRole::ProgramCounter))
      cands.push_back({id, info, t});
  }
  std::stable_sort(cands.begin(), cands.end(),
                   [](const Candidate& a, const Candidate& b) { return a.info.size > b.info.size; });
  std::vector<uint64_t> covered(arch_->regs.size(), 0);  // bit i: byte i already taken
  std::vector<DumpPiece> out;
  for (const Candidate& c : cands) {
    const uint32_t reg_bytes = arch_->regs[c.t.reg].bytes();
    const uint32_t n = std::min<uint32_t>(c.info.size, reg_bytes - c.t.offset);
    if (n == 0 || reg_bytes > 64) continue;
    const uint64_t mask = (n >= 64 ? ~0ull : ((1ull << n) - 1)) << c.t.offset;
    if ((mask & ~covered[c.t.reg]) == 0) continue;
    DumpPiece p;
    p.dump_offset = c.info.offset;
    p.size = uint16_t(n);
    p.target = c.t;
    p.zero_extend = zero_extends(c.t, c.info.size, mode64);
    covered[c.t.reg] |= p.zero_extend ? ~0ull : mask;
    out.push_back(p);
  }
  return out;
}

}  // namespace ttd::fmt::umtrace
