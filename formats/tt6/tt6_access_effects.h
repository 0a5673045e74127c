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

// The cache-block and stream kinds, out of line.
void emit_tt6_block_access(TraceSink& sink, uint64_t pid, const AccessShape& shape, uint32_t ea, uint32_t third);

// `third` is the MEMORY_EXTENDED third longword (XER for lswx/stswx, rB for
// dst/dstst); 0 for MEMORY records. Loads and stores, a third of a typical
// trace's records, are handled inline.
inline void emit_tt6_access(TraceSink& sink, uint64_t pid, const AccessShape& shape, uint32_t op, uint32_t ea,
                            uint32_t third) {
  switch (shape.kind) {
    case AccessKind::Load:
      if (uint32_t size = access_size(op, shape, third)) sink.mem_read(pid, access_address(ea, shape), size, {});
      return;
    case AccessKind::Store:
    case AccessKind::StoreCond:
      if (uint32_t size = access_size(op, shape, third)) sink.mem_unknown(pid, access_address(ea, shape), size);
      return;
    default: emit_tt6_block_access(sink, pid, shape, ea, third);
  }
}

}  // namespace ttd::fmt::tt6
