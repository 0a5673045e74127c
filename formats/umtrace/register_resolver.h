// Resolves the trace's register ids (XED enum values named by the context
// map) to our gdb register tables: which ttd::ArchDesc register holds the
// value, at which byte offset ("ah" is byte 1 of rax), and whether writing
// it clears the bytes above (a 32-bit register write in 64-bit code clears
// the upper half of the 64-bit register; segment selectors and x87 control
// words are 16-bit values in gdb's 32-bit slots).
//
// Resolution uses names only: a name gdb knows directly (rax, xmm3, st0,
// mxcsr, fsbase...), else the register's effective largest enclosing
// register from the map, else a member of its common-name group that gdb
// knows (eax in 32-bit code of a 64-bit trace lies in rax). Byte offsets
// come from the dump layout when both registers are in the context, else
// from the one x86 rule there is (ah, bh, ch, dh are byte 1).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "formats/umtrace/context_map.h"
#include "state/arch.h"

namespace ttd::fmt::umtrace {

enum class RegRole : uint8_t {
  None,            // not a machine register we track (pseudo registers, crN, ...)
  Register,        // a piece of an ArchDesc register
  ProgramCounter,  // rip/eip/ip: the step's pc, never emitted as a write
  StackMemory,     // XED's STACKPUSH / STACKPOP operands: memory slots
};

struct RegTarget {
  RegRole role = RegRole::None;
  uint16_t reg = 0;     // ArchDesc register index
  uint8_t offset = 0;   // byte offset of this name inside that register
};

// One register's piece of a context dump.
struct DumpPiece {
  uint16_t dump_offset = 0;
  uint16_t size = 0;    // bytes taken from the dump (already cut to the register)
  RegTarget target;
  bool zero_extend = false;
};

class RegisterResolver {
 public:
  // Fails (naming the context map) when no entry names a register of arch.
  static Result<RegisterResolver> build(const ContextMap& map, const ArchDesc& arch);

  const ArchDesc& arch() const { return *arch_; }
  // Ids beyond the map resolve to RegRole::None.
  const RegTarget& target(uint16_t id, bool mode64) const;
  // Whether writing size bytes of t clears the rest of its register.
  bool zero_extends(const RegTarget& t, uint32_t size, bool mode64) const;
  // Pieces that rebuild every register a dump of this mode holds, each
  // register byte taken once (the largest register that covers it wins).
  const std::vector<DumpPiece>& dump_pieces(bool mode64) const { return mode64 ? dump64_ : dump32_; }
  uint16_t dump_size() const { return dump_size_; }

 private:
  RegTarget resolve(const ContextMap& map, uint16_t id, bool mode64, int depth) const;
  std::vector<DumpPiece> plan_dump(const ContextMap& map, bool mode64) const;

  const ArchDesc* arch_ = nullptr;
  uint16_t dump_size_ = 0;
  std::array<RegTarget, ContextMap::kEntries> t32_{}, t64_{};
  std::vector<DumpPiece> dump32_, dump64_;
  std::vector<bool> selector_like_;  // ArchDesc registers holding a 16-bit value in a wider gdb slot
};

}  // namespace ttd::fmt::umtrace
