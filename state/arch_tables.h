// Private to state/arch*.cpp: the per-architecture table builders and the
// small helper they share. Nothing outside state/arch*.cpp includes this;
// everyone else uses arch.h.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "state/arch.h"

namespace ttd::detail {

// What one arch file produces: the description (without offsets, file_bytes,
// pc/sp indexes — arch.cpp derives those) plus the names that find() accepts
// as synonyms ({alias, gdb name}).
struct ArchTable {
  ArchDesc desc;
  std::string pc_name, sp_name;
  std::vector<std::pair<std::string, std::string>> aliases;
};

// Appends registers feature by feature, the way gdb's feature XML files list
// them. Registers must be added in ascending gdb regnum order (the 'g' packet
// concatenates in that order); arch.cpp checks it.
class RegAdder {
 public:
  explicit RegAdder(ArchDesc& a) : a_(a) {}
  void feature(std::string name) { feature_ = std::move(name); }
  void reg(std::string name, uint16_t bits, uint16_t regnum, std::string type, std::string group,
           int uc = -1, int cs = -1) {
    RegisterDesc r;
    r.name = std::move(name);
    r.bits = bits;
    r.gdb_regnum = regnum;
    r.type = std::move(type);
    r.feature = feature_;
    r.group = std::move(group);
    r.unicorn_id = uc;
    r.capstone_id = cs;
    a_.regs.push_back(std::move(r));
  }
  // count registers prefix<first>..; regnums, Unicorn and Capstone ids
  // consecutive from the given first values (-1 stays -1 for all).
  void seq(const std::string& prefix, int first, int count, uint16_t bits, uint16_t regnum,
           const std::string& type, const std::string& group, int uc = -1, int cs = -1) {
    for (int i = 0; i < count; ++i)
      reg(prefix + std::to_string(first + i), bits, uint16_t(regnum + i), type, group,
          uc < 0 ? -1 : uc + i, cs < 0 ? -1 : cs + i);
  }
  // Next free regnum (one past the last register added).
  uint16_t next() const { return a_.regs.empty() ? 0 : uint16_t(a_.regs.back().gdb_regnum + 1); }

 private:
  ArchDesc& a_;
  std::string feature_;
};

ArchTable build_x86_64();
ArchTable build_i386();
ArchTable build_aarch64();
ArchTable build_arm();
ArchTable build_mips();
ArchTable build_ppc32();

}  // namespace ttd::detail
