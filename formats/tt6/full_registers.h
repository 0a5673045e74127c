// Which bytes of a FULL record are which ppc32 register (state/arch_ppc.cpp
// table), and the register effects between two records. Values go to the
// sink as the record holds them: big-endian, i.e. the target's byte order.
//   srr0 -> the step's pc (never a register effect), srr1 -> msr,
//   r0-r31, cr, xer, lr, ctr, vrsave, f0-f31, fpscr, vr0-vr31, vscr.
// mq (601 only) and the pads have no place in the table and are not shown.
// A vector register whose save_vrvalid bit is clear is unknown.
#pragma once
#include <cstdint>
#include <vector>

#include "formats/common/trace_sink.h"
#include "state/arch.h"

namespace ttd::fmt::tt6 {

class FullRegisterEmitter {
 public:
  explicit FullRegisterEmitter(const ArchDesc& arch);
  // Every register the record carries (the initial state).
  void initial(const uint8_t* rec, TraceSink& sink, uint64_t tid) const;
  // The registers that differ between two consecutive records.
  void changes(const uint8_t* prev, const uint8_t* cur, TraceSink& sink, uint64_t tid) const;
  // Every register the records carry becomes unknown.
  void forget_all(TraceSink& sink, uint64_t tid) const;
  size_t register_count() const { return slots_.size(); }

 private:
  struct Slot {
    uint32_t offset;  // in the record
    uint16_t bytes;
    uint16_t reg;     // index into the arch table
    int16_t vr;       // vector register number, -1 for the others
  };
  static bool valid(const uint8_t* rec, const Slot& s);
  std::vector<Slot> slots_;
};

}  // namespace ttd::fmt::tt6
