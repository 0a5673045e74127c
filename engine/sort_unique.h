// Sorting the index builder's u64 lists (chunk summaries' pcs and lines,
// summary filters' keys) and dropping repeats. A radix sort on the bytes
// the values differ in: they are addresses or keys built from them, whose
// high bytes are mostly the same, so 2-4 passes of a few instructions a
// value replace std::sort's ~log2(n) compares (which was 3-5 % of a
// one-core build). The result is the same as std::sort + std::unique.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ttd {

// Sorts `values` ascending and drops repeats. The radix passes use a
// buffer of the calling thread's, kept for its next call.
void sort_unique_u64(std::vector<uint64_t>& values);

// Below this many values std::sort is cheaper than the radix's histograms.
constexpr size_t kRadixSortMin = 192;

}  // namespace ttd
