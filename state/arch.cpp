// Architecture lookup: builds each table once (lazily, thread-safe via
// function-local statics), derives offsets / sizes / pc and sp indexes from
// the register list, and answers name lookups with aliases.
#include "state/arch.h"

#include <stdexcept>
#include <string>
#include <unordered_map>

#include "state/arch_tables.h"

namespace ttd {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return out;
}

struct Entry {
  ArchDesc desc;
  std::unordered_map<std::string, uint16_t> names;  // lowercase name or alias -> index
};

uint16_t index_of(const ArchDesc& a, const std::string& name) {
  for (size_t i = 0; i < a.regs.size(); ++i)
    if (a.regs[i].name == name) return uint16_t(i);
  // A table that names a register it does not have is a programming error
  // in this file's siblings; fail loudly at first use rather than serve a
  // wrong layout to gdb.
  throw std::logic_error("arch table " + a.name + ": no register '" + name + "'");
}

Entry finish(detail::ArchTable t) {
  Entry e;
  e.desc = std::move(t.desc);
  ArchDesc& a = e.desc;
  if (a.regs.size() > 256) throw std::logic_error("arch table " + a.name + ": over 256 registers");
  uint32_t off = 0;
  for (size_t i = 0; i < a.regs.size(); ++i) {
    RegisterDesc& r = a.regs[i];
    // The 'g' packet concatenates registers in regnum order; RegisterFile
    // bytes are that packet, so regs must be strictly ascending.
    if (i > 0 && r.gdb_regnum <= a.regs[i - 1].gdb_regnum)
      throw std::logic_error("arch table " + a.name + ": regnums not ascending at " + r.name);
    if (r.bits == 0 || r.bits % 8 != 0)
      throw std::logic_error("arch table " + a.name + ": bad size for " + r.name);
    r.offset = off;
    off += r.bytes();
    if (!e.names.emplace(lower(r.name), uint16_t(i)).second)
      throw std::logic_error("arch table " + a.name + ": duplicate register " + r.name);
  }
  a.file_bytes = off;
  a.pc_index = index_of(a, t.pc_name);
  a.sp_index = index_of(a, t.sp_name);
  // Aliases never shadow a real register name (on arm "sp" is itself a
  // register; on mips "sp" is r29).
  e.names.emplace("pc", a.pc_index);
  e.names.emplace("sp", a.sp_index);
  for (const auto& [alias, target] : t.aliases) e.names.emplace(lower(alias), index_of(a, target));
  return e;
}

const Entry& entry(ArchId id) {
  switch (id) {
    case ArchId::X86_64: {
      static const Entry e = finish(detail::build_x86_64());
      return e;
    }
    case ArchId::I386: {
      static const Entry e = finish(detail::build_i386());
      return e;
    }
    case ArchId::AArch64: {
      static const Entry e = finish(detail::build_aarch64());
      return e;
    }
    case ArchId::Arm: {
      static const Entry e = finish(detail::build_arm());
      return e;
    }
    case ArchId::Mips: {
      static const Entry e = finish(detail::build_mips());
      return e;
    }
    case ArchId::Ppc32: {
      static const Entry e = finish(detail::build_ppc32());
      return e;
    }
  }
  throw std::invalid_argument("unknown ArchId " + std::to_string(int(id)));
}

}  // namespace

std::optional<uint16_t> ArchDesc::find(std::string_view name) const {
  const Entry& e = entry(id);
  std::string key = lower(name);
  if (this == &e.desc) {
    auto it = e.names.find(key);
    if (it == e.names.end()) return std::nullopt;
    return it->second;
  }
  // A hand-made or copied ArchDesc (tests, custom layouts): its own names
  // first, then the aliases of the architecture it claims to be, re-resolved
  // by name so a different layout still answers correctly.
  for (size_t i = 0; i < regs.size(); ++i)
    if (lower(regs[i].name) == key) return uint16_t(i);
  if (key == "pc" && pc_index < regs.size()) return pc_index;
  if (key == "sp" && sp_index < regs.size()) return sp_index;
  auto it = e.names.find(key);
  if (it == e.names.end()) return std::nullopt;
  const std::string& target = e.desc.regs[it->second].name;
  for (size_t i = 0; i < regs.size(); ++i)
    if (regs[i].name == target) return uint16_t(i);
  return std::nullopt;
}

const ArchDesc& arch_desc(ArchId id) { return entry(id).desc; }

std::optional<ArchId> arch_from_name(std::string_view name) {
  static const std::unordered_map<std::string, ArchId> names = {
      {"x86_64", ArchId::X86_64},  {"x86-64", ArchId::X86_64},  {"amd64", ArchId::X86_64},
      {"x64", ArchId::X86_64},     {"i386:x86-64", ArchId::X86_64},
      {"i386", ArchId::I386},      {"x86", ArchId::I386},       {"i686", ArchId::I386},
      {"i586", ArchId::I386},      {"i486", ArchId::I386},      {"ia32", ArchId::I386},
      {"aarch64", ArchId::AArch64}, {"arm64", ArchId::AArch64},
      {"arm", ArchId::Arm},        {"armv7", ArchId::Arm},      {"armv7l", ArchId::Arm},
      {"armel", ArchId::Arm},      {"armhf", ArchId::Arm},
      {"mips", ArchId::Mips},      {"mipsel", ArchId::Mips},    {"mips32", ArchId::Mips},
      {"mipseb", ArchId::Mips},
      {"ppc", ArchId::Ppc32},      {"ppc32", ArchId::Ppc32},    {"powerpc", ArchId::Ppc32},
      {"powerpc:common", ArchId::Ppc32},
  };
  auto it = names.find(lower(name));
  if (it == names.end()) return std::nullopt;
  return it->second;
}

std::vector<ArchId> all_arches() {
  return {ArchId::X86_64, ArchId::I386, ArchId::AArch64, ArchId::Arm, ArchId::Mips, ArchId::Ppc32};
}

}  // namespace ttd
