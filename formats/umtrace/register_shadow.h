// One thread's registers as the reader knows them, byte by byte. The trace
// gives register pieces (al, ah, eax, a 16-bit selector...), the sink takes
// whole gdb registers: pieces are merged here, and a register is sent to
// the sink only when all its bytes are known and its value changed. So the
// sink's register is valid exactly when every byte here is known, and a
// partial write to a register the sink does not know leaves it unknown
// rather than guessing the other bytes.
#pragma once
#include <cstdint>
#include <vector>

#include "formats/common/trace_sink.h"
#include "formats/umtrace/register_resolver.h"

namespace ttd::fmt::umtrace {

class RegisterShadow {
 public:
  explicit RegisterShadow(const ArchDesc& arch);

  // Writes size bytes at t (a RegRole::Register target); zero_extend clears
  // the register's bytes above them.
  void write(TraceSink& sink, uint64_t tid, const RegTarget& t, const uint8_t* bytes, uint32_t size,
             bool zero_extend);
  // Forgets one register / all registers, telling the sink about those it knew.
  void forget(TraceSink& sink, uint64_t tid, uint16_t reg);
  void forget_all(TraceSink& sink, uint64_t tid);

  // Where this thread will execute next, as far as the trace said.
  bool pc_known() const { return pc_known_; }
  uint64_t pc() const { return pc_; }
  void set_pc(uint64_t pc) { pc_ = pc, pc_known_ = true; }

 private:
  const ArchDesc* arch_;
  std::vector<uint8_t> bytes_, known_;  // per register byte, at RegisterDesc::offset
  std::vector<uint8_t> full_;          // register fully known (= valid in the sink)
  uint64_t pc_ = 0;
  bool pc_known_ = false;
};

}  // namespace ttd::fmt::umtrace
