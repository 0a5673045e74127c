// usercorn wrote register numbers as the Unicorn 1.x enums it linked
// (UC_X86_REG_RAX = 35, ...). The file format is defined by those 1.x
// numbers, so UCIR keeps its own table (Unicorn 1.x number -> gdb register
// name, plus which registers usercorn's keyframe covers) instead of relying
// on whatever Unicorn is installed. Checked against Debian's Unicorn 2.0.1:
// 2.x dropped x86 EIZ, RIZ, CR5-7, CR9-15 and DR8-15 but kept every other
// number (the enum has explicit gaps), and ARM, ARM64 and MIPS are
// unchanged, so every number here equals its 2.0.1 constant
// (tests/formats_ucir/test_uc1_registers.cpp checks this against the
// state/ tables' Unicorn ids).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "state/arch.h"

namespace ttd::fmt::ucir {

struct Uc1Register {
  uint16_t number;    // Unicorn 1.0.x UC_<ARCH>_REG_* value
  const char* names;  // gdb names to look up, '|'-separated, first found wins
  // In usercorn's register list for the architecture (go/arch/*/arch.go),
  // minus the pc: the registers its keyframe writes when non-zero, and so
  // the ones that are zero from the keyframe on when it does not.
  bool tracked;
};

// Every Unicorn 1.x register the UCIR reader and writer understand for an
// architecture; for ppc32, which usercorn never traced, ttd's extension
// (ppc32_register_table).
std::span<const Uc1Register> uc1_register_table(ArchId arch);

// ttd's ppc32 extension (docs/formats/ucir.md, "ppc32"): Unicorn 2's
// UC_PPC_REG_* numbers, and ttd's own from 512 on for the AltiVec
// registers Unicorn 2.0.1 lacks. No register is tracked (zero-filled).
std::span<const Uc1Register> ppc32_register_table();

// The table resolved against one architecture description.
class Uc1RegisterMap {
 public:
  static constexpr int32_t kUnknown = -1;  // not a Unicorn 1.x register we know for this architecture
  static constexpr int32_t kNoSlot = -2;   // known, but no slot for it (not in the table, or the pc)

  explicit Uc1RegisterMap(const ArchDesc& arch);

  // Register index into arch.regs, or kUnknown / kNoSlot.
  int32_t index_of(uint16_t number) const {
    return number < by_number_.size() ? by_number_[number] : kUnknown;
  }
  // The Unicorn 1.x number a register index is written as, if any.
  std::optional<uint16_t> number_of(uint16_t index) const;
  // Indexes of the tracked registers (see Uc1Register::tracked).
  const std::vector<uint16_t>& tracked() const { return tracked_; }

 private:
  std::vector<int32_t> by_number_;
  std::vector<int32_t> by_index_;
  std::vector<uint16_t> tracked_;
};

}  // namespace ttd::fmt::ucir
