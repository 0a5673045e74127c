// usercorn wrote register numbers as the Unicorn 1.x enums it linked
// (UC_X86_REG_RAX = 35, ...). Unicorn 2 renumbered x86 (EIZ, RIZ, CR5-7,
// CR9-15 and DR8-15 are gone, shifting everything after them), and the
// architecture tables in state/ carry Unicorn 2 ids, so UCIR needs its own
// table: Unicorn 1.x number -> gdb register name. ARM, ARM64 and MIPS kept
// their 1.x numbers in 2.x for every register listed here.
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
// architecture (none for ppc32: usercorn never traced it with Unicorn).
std::span<const Uc1Register> uc1_register_table(ArchId arch);

// The table resolved against one architecture description.
class Uc1RegisterMap {
 public:
  static constexpr int32_t kUnknown = -1;  // not a Unicorn 1.x register we know for this architecture
  static constexpr int32_t kNoSlot = -2;   // known, but the architecture table has no such register

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
