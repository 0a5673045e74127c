// The one call / return / jump classifier of the project: the call query,
// the DAP stepper and the monitor all ask it. Decided from an
// instruction's code bytes, per architecture:
//   x86-64, x86  call; ret/iret; jumps (Capstone's groups)
//   aarch64      bl, blr; ret; b, br, cbz, tbz, b.cond
//   arm          bl, blx (any condition); bx lr, pop {..., pc},
//                ldm sp!/fp, {..., pc}, mov pc, lr; any other pc write
//   mips         jal, jalr, bal, bltzal/bgezal(l); jr $ra; other branches
//   ppc32        every branch with LK=1 (bl, bla, bcl, bctrl, blrl, the
//                conditional forms); blr/bclr with LK=0 (conditional
//                returns too); b, bc, bctr
// Capstone 4 puts the RISC calls in the jump group only (and decodes
// PowerPC's `bcl 20,31` as bdnzl, and not every AltiVec word), so those
// are decided from the instruction id or, on PowerPC, from the encoding
// itself (any 4 bytes classify: a non-branch word is Other).
// Returns are candidates: the call query only counts one when control
// lands on the return address of an open call.
#pragma once
#include <cstdint>
#include <span>

#include "state/arch.h"

namespace ttd::query {

enum class InsnClass : uint8_t {
  Other,    // no control transfer
  Call,
  Return,
  Unknown,  // code bytes unknown or not decodable
  Jump,     // any other branch (conditional or not, direct or indirect)
};
const char* insn_class_name(InsnClass c);  // "other", "call", "return", "unknown", "jump"

class InstructionClassifier {
 public:
  explicit InstructionClassifier(const ArchDesc& arch);
  ~InstructionClassifier();
  InstructionClassifier(const InstructionClassifier&) = delete;
  InstructionClassifier& operator=(const InstructionClassifier&) = delete;

  // Classifies the first instruction of `code` (located at pc); Unknown
  // when code is empty or does not decode.
  InsnClass classify(uint64_t pc, std::span<const uint8_t> code) const;
  // Bytes worth fetching at a pc (the longest instruction of the arch).
  size_t max_insn_bytes() const;

 private:
  const ArchDesc& arch_;
  size_t handle_ = 0;  // csh (size_t in Capstone 4); 0 when Capstone could not open
  bool open_ = false;
};

}  // namespace ttd::query
