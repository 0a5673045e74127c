// Finding a byte pattern in sparse paged memory with per-byte validity:
// matches may cross page boundaries but never include an unknown byte.
#pragma once
#include <cstdint>
#include <functional>
#include <span>

#include "state/paged_memory.h"

namespace ttd::query {

// Calls fn(addr) for each match lying wholly in [lo, last] (last is the
// last byte, inclusive, so the top of the address space is reachable), in
// address order, until fn returns false. Returns false if fn stopped it.
bool find_pattern(const PagedMemory& m, std::span<const uint8_t> pattern, uint64_t lo, uint64_t last,
                  const std::function<bool(uint64_t addr)>& fn);

}  // namespace ttd::query
