// Call-stack unwinding: DWARF call-frame information (.debug_frame, then
// .eh_frame) where the program has it, frame-pointer walking where it does
// not. The caller supplies the innermost frame's registers and a memory
// reader; every frame lists the registers the unwinder could recover.
#pragma once
#include <cstdint>
#include <vector>

#include "debuginfo/debug_types.h"

namespace ttd::dbg {

class DwarfFile;
class SymbolTable;
struct DwarfRegisterSet;

class FrameUnwinder {
 public:
  FrameUnwinder(const DwarfFile& f, const SymbolTable& syms, uint64_t bias);
  // Frames from the innermost (pc) outwards; at most max_frames. Stops at
  // the outermost frame (return address undefined), on a zero pc, or when
  // the stack pointer stops growing (a corrupt or unknown stack).
  std::vector<UnwoundFrame> unwind(uint64_t pc, const DwarfRegisterReader& regs, const MemoryReader& mem,
                                   size_t max_frames) const;

 private:
  bool step_cfi(const UnwoundFrame& f, bool innermost, const MemoryReader& mem, UnwoundFrame& caller) const;
  bool step_frame_pointer(const UnwoundFrame& f, bool innermost, const MemoryReader& mem, UnwoundFrame& caller) const;

  const DwarfFile& elf_;
  const SymbolTable& syms_;
  const DwarfRegisterSet* set_;
  uint64_t bias_;
};

}  // namespace ttd::dbg
