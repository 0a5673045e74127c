// The memory effects of one TT6/TT6E MEMORY or MEMORY_EXTENDED record: the
// trace gives the effective address, the opcode gives kind and size, and no
// record carries a value. So:
//   load            -> mem_read(addr, size, {})     (a read, value unknown)
//   store, stwcx.   -> mem_unknown(addr, size)      (a write of an unknown value:
//                                                     the old bytes are no longer known)
//   dcbz            -> mem_write(block, 32 zeros)   (the one value TT6 does know)
//   dcba, dcbi      -> mem_unknown(block)
//   dcbf/dcbst/dcbt/dcbtst/icbi -> attr cache_ea   (no change to memory)
//   dst, dstst      -> attrs dst_ea, dst_control   (a prefetch hint, no access)
// AltiVec element and vector accesses cover the EA rounded down to their
// size, as the hardware does.
#pragma once
#include <cstdint>

#include "formats/common/trace_sink.h"
#include "formats/tt6/ppc_opcode.h"

namespace ttd::fmt::tt6 {

// `third` is the MEMORY_EXTENDED third longword (XER for lswx/stswx, rB for
// dst/dstst); 0 for MEMORY records.
void emit_tt6_access(TraceSink& sink, uint64_t pid, const AccessShape& shape, uint32_t op, uint32_t ea,
                     uint32_t third);

}  // namespace ttd::fmt::tt6
