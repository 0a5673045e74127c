// Finding a byte pattern in sparse paged memory with per-byte validity:
// matches may cross page boundaries but never include an unknown byte.
//
// The search is a Knuth-Morris-Pratt automaton fed the known bytes in
// address order (memchr skips to the pattern's first byte while nothing is
// matched), so its cost is linear in the bytes scanned plus the pattern,
// never their product: a long, self-similar pattern over repetitive memory
// (zeros) costs what a short one does. Nothing is buffered, so a match
// across pages or across a run of known bytes needs no copy.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "state/paged_memory.h"

namespace ttd::query {

class PatternFinder {
 public:
  // The pattern must outlive the finder; it must not be empty.
  explicit PatternFinder(std::span<const uint8_t> pattern);

  // Calls fn(addr) for each match lying wholly in [lo, last] (last is the
  // last byte, inclusive, so the top of the address space is reachable), in
  // address order, until fn returns false. `cancel`, when given, is polled
  // every few pages; returning true abandons the scan. Returns false if fn
  // or cancel stopped it.
  bool find(const PagedMemory& m, uint64_t lo, uint64_t last, const std::function<bool(uint64_t addr)>& fn,
            const std::function<bool()>& cancel = {}) const;

 private:
  std::span<const uint8_t> pat_;
  std::vector<uint32_t> fail_;  // KMP: longest proper border of pat_[0..i]
};

// One-shot form of PatternFinder::find.
bool find_pattern(const PagedMemory& m, std::span<const uint8_t> pattern, uint64_t lo, uint64_t last,
                  const std::function<bool(uint64_t addr)>& fn);

}  // namespace ttd::query
