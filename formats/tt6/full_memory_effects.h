// The memory effects of one instruction of a FULL trace. FULL records carry
// no data address, but they carry every register: the effective address
// follows from the registers before the instruction, and most values too -
// a store's from the source register before it, a load's from the target
// register after it (the next record). Where the value cannot be told
// (no next record, lfs/stfs of values the ISA leaves undefined, 64-bit
// forms, an invalid vector register) the access is reported without it:
// a read of unknown value, or a write that makes the bytes unknown.
// stwcx. stores only if CR0[EQ] is set after it.
#pragma once
#include <cstdint>

#include "formats/common/trace_sink.h"
#include "formats/tt6/tt6_layout.h"

namespace ttd::fmt::tt6 {

// `after` is the next record's state, nullptr for the trace's last step.
void emit_full_access(TraceSink& sink, uint64_t pid, uint32_t op, const PpcUserState& before,
                      const PpcUserState* after);

// stfs's double -> single conversion, as the ISA defines it (no rounding);
// also recovers the single lfs loaded from the double it produced. False
// where the ISA leaves the result undefined.
bool single_from_double_bits(uint64_t d, uint32_t& single);

}  // namespace ttd::fmt::tt6
