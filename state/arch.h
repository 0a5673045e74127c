// Architecture tables: registers as gdb names them, their sizes and gdb
// target-description features, and the Unicorn / Capstone ids that go with
// them. Everything above state/ that needs to know "what is register 16 on
// x86-64" asks here; no other layer hard-codes register layouts.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttd {

enum class ArchId : uint8_t { X86_64 = 0, I386 = 1, AArch64 = 2, Arm = 3, Mips = 4, Ppc32 = 5 };
enum class Endian : uint8_t { Little, Big };

// When a data watchpoint is reported relative to the accessing instruction
// (see notes on gdb's per-architecture expectations): x86 reports after the
// access retired, the others before it.
enum class WatchTiming : uint8_t { AfterAccess, BeforeAccess };

struct RegisterDesc {
  std::string name;      // gdb's lowercase name ("rax", "x0", "cpsr")
  uint16_t bits = 0;     // size in bits
  uint16_t gdb_regnum = 0;  // regnum in the target description = position in 'g'
  std::string type;      // gdb XML type: int, code_ptr, data_ptr, i387_ext, vec128, ieee_double, ...
  std::string feature;   // gdb feature name, e.g. "org.gnu.gdb.i386.core"
  std::string group;     // "general", "float", "vector", "system"
  int unicorn_id = -1;   // Unicorn 2.x UC_<ARCH>_REG_* value, -1 if none
  int capstone_id = -1;  // Capstone 4 <ARCH>_REG_* value, -1 if none
  uint32_t offset = 0;   // byte offset inside a RegisterFile (filled by the table)
  uint32_t bytes() const { return bits / 8u; }
};

struct ArchDesc {
  ArchId id{};
  std::string name;          // our canonical name: x86_64, i386, aarch64, arm, mips, ppc32
  std::string gdb_arch;      // <architecture> in target.xml: i386:x86-64, aarch64, ...
  std::string lldb_triple;   // x86_64-unknown-linux-gnu, ...
  Endian endian = Endian::Little;
  uint8_t ptr_size = 8;
  WatchTiming watch_timing = WatchTiming::AfterAccess;
  std::vector<RegisterDesc> regs;  // in gdb_regnum order
  uint16_t pc_index = 0;     // index into regs
  uint16_t sp_index = 0;
  uint32_t file_bytes = 0;   // total size of all registers
  int uc_arch = 0, uc_mode = 0;  // Unicorn uc_arch / uc_mode
  int cs_arch = 0, cs_mode = 0;  // Capstone cs_arch / cs_mode

  // Register index by name, case-insensitive; also accepts the aliases the
  // table lists ("pc" on x86-64 means rip, "sp" means rsp, "fp" ...).
  std::optional<uint16_t> find(std::string_view name) const;
  const RegisterDesc& pc() const { return regs[pc_index]; }
  const RegisterDesc& sp() const { return regs[sp_index]; }
};

const ArchDesc& arch_desc(ArchId id);
// Accepts common spellings: x86_64, x86-64, amd64, i386, x86, aarch64, arm64,
// arm, mips, mipsel, ppc, ppc32, powerpc.
std::optional<ArchId> arch_from_name(std::string_view name);
std::vector<ArchId> all_arches();

}  // namespace ttd
