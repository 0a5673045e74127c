#include "formats/tt6/tt6_access_effects.h"

namespace ttd::fmt::tt6 {

void emit_tt6_block_access(TraceSink& sink, uint64_t pid, const AccessShape& s, uint32_t ea, uint32_t third) {
  const uint64_t addr = access_address(ea, s);
  switch (s.kind) {
    case AccessKind::CacheZero: sink.mem_write(pid, addr, kZeroCacheBlock); return;
    case AccessKind::CacheUndef: sink.mem_unknown(pid, addr, kCacheBlock); return;
    case AccessKind::CacheTouch: sink.attr("cache_ea", uint64_t(ea)); return;
    case AccessKind::Stream:
      sink.attr("dst_ea", uint64_t(ea));
      sink.attr("dst_control", uint64_t(third));
      return;
    case AccessKind::None:
      // A memory-class opcode the tables do not describe: keep the address.
      sink.attr("data_addr", uint64_t(ea));
      return;
    case AccessKind::Load:
    case AccessKind::Store:
    case AccessKind::StoreCond: return;  // emit_tt6_access's own
  }
}

}  // namespace ttd::fmt::tt6
