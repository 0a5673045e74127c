// Which source EID each step of a converted trace came from. `ttd convert
// --drop-events` leaves the source's event steps out (their effects on the
// state go with the step before them), so output EID k is the source's
// k-th non-event step; without dropped events the mapping is the identity.
// Kept as runs, not per step: one entry per dropped stretch of events.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ttd::cli {

struct ConvertedEids {
  // (first output EID of a run, source EID - output EID within it), sorted.
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  uint64_t output_steps = 0, source_steps = 0;

  // Notes that output EID `out` is source EID `src` (called in order).
  void add(uint64_t out, uint64_t src) {
    if (runs.empty() ? src != out : runs.back().second != src - out) runs.emplace_back(out, src - out);
  }
  // The source EID of output EID `out`; the end position maps to the end.
  uint64_t source_of(uint64_t out) const {
    if (out >= output_steps) return source_steps;
    auto it = std::upper_bound(runs.begin(), runs.end(), std::make_pair(out, UINT64_MAX));
    return it == runs.begin() ? out : out + std::prev(it)->second;
  }
  bool identity() const { return runs.empty() && output_steps == source_steps; }
};

}  // namespace ttd::cli
