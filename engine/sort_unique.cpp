#include "engine/sort_unique.h"

#include <algorithm>
#include <cstring>

namespace ttd {

void sort_unique_u64(std::vector<uint64_t>& values) {
  const size_t n = values.size();
  if (n < kRadixSortMin) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return;
  }
  // One pass counts all eight bytes; a byte every value has the same
  // needs no pass of its own.
  static thread_local uint32_t counts[8][256];
  std::memset(counts, 0, sizeof(counts));
  for (uint64_t v : values)
    for (int b = 0; b < 8; ++b) ++counts[b][(v >> (8 * b)) & 0xff];
  static thread_local std::vector<uint64_t> scratch;
  if (scratch.size() < n) scratch.resize(n);
  uint64_t* from = values.data();
  uint64_t* to = scratch.data();
  const uint64_t first = values[0];
  for (int b = 0; b < 8; ++b) {
    uint32_t* c = counts[b];
    const int shift = 8 * b;
    if (c[(first >> shift) & 0xff] == n) continue;
    uint32_t at = 0;
    for (int d = 0; d < 256; ++d) {
      const uint32_t k = c[d];
      c[d] = at;
      at += k;
    }
    for (size_t i = 0; i < n; ++i) {
      const uint64_t v = from[i];
      to[c[(v >> shift) & 0xff]++] = v;
    }
    std::swap(from, to);
  }
  // Unique, writing into `values` (the sorted run may be in `scratch`).
  uint64_t* out = values.data();
  size_t m = 0;
  for (size_t i = 0; i < n; ++i)
    if (m == 0 || out[m - 1] != from[i]) out[m++] = from[i];
  values.resize(m);
}

}  // namespace ttd
