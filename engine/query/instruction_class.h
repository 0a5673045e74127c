// Whether the instruction at a pc is a call, a return or neither, decided
// with Capstone from its code bytes (x86 call/ret; aarch64 bl/blr/ret;
// arm bl/blx; mips jal/jalr; ppc bl/bctrl/blr; Capstone's call and return
// groups elsewhere). Returns are candidates: the call query only counts
// one when control lands on the return address of an open call.
#pragma once
#include <cstdint>
#include <memory>
#include <span>

#include "state/arch.h"

namespace ttd::query {

enum class InsnClass : uint8_t {
  Other,    // neither call nor return
  Call,
  Return,
  Unknown,  // code bytes unknown or not decodable: decide by pc/sp heuristics
};

class InstructionClassifier {
 public:
  explicit InstructionClassifier(const ArchDesc& arch);
  ~InstructionClassifier();
  InstructionClassifier(const InstructionClassifier&) = delete;
  InstructionClassifier& operator=(const InstructionClassifier&) = delete;

  // Classifies the first instruction of `code` (located at pc).
  InsnClass classify(uint64_t pc, std::span<const uint8_t> code) const;
  // Bytes worth fetching at a pc (the longest instruction of the arch).
  size_t max_insn_bytes() const;

 private:
  const ArchDesc& arch_;
  size_t handle_ = 0;  // csh (size_t in Capstone 4); 0 when Capstone could not open
  bool open_ = false;
};

}  // namespace ttd::query
