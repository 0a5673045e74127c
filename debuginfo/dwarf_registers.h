// DWARF register numbers of each supported machine (the psABI tables) and
// the names gdb uses for them, so callers can map them onto their own
// register files by name.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace ttd::dbg {

struct DwarfRegisterSet {
  std::vector<std::string_view> names;  // index = DWARF regno; "" = none
  int sp = -1;               // stack pointer regno
  int fp = -1;               // frame pointer regno
  int return_address = -1;   // CFI return-address column
  int pc = -1;               // regno of the pc itself, -1 if it has none
  uint8_t ptr_size = 8;
};

// nullptr for machines we do not unwind (EM_* from elf.h).
const DwarfRegisterSet* dwarf_registers(uint16_t e_machine);

}  // namespace ttd::dbg
