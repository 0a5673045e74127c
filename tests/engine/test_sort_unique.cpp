// sort_unique_u64 (the builder's radix sort of summary lists and filter
// keys) gives what std::sort + std::unique gives, on both sides of the
// size where it switches to radix passes, for values that share high
// bytes (addresses), that differ in every byte, in one byte or in two
// bytes apart, and that are all equal.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "engine/sort_unique.h"
#include "engine/unique_collector.h"

using namespace ttd;

namespace {
std::vector<uint64_t> reference(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}
}  // namespace

TEST_CASE("sort_unique_u64: the same as std::sort + std::unique, small and large, any byte pattern") {
  std::mt19937_64 rng(17);
  const size_t sizes[] = {0, 1, 2, kRadixSortMin - 1, kRadixSortMin, kRadixSortMin + 1, 1000, 50000};
  for (size_t n : sizes) {
    for (int pattern = 0; pattern < 7; ++pattern) {
      std::vector<uint64_t> v(n);
      for (auto& x : v) {
        const uint64_t r = rng();
        switch (pattern) {
          case 0: x = r; break;                                            // every byte differs
          case 1: x = 0x7f3a12000000ull + (r & 0xfffff); break;            // pcs in one library
          case 2: x = (uint64_t(1) << 63) | ((r % 64) << 12) | (r >> 60); break;  // filter keys, many repeats
          case 3: x = 42; break;                                           // all equal
          case 4: x = (r & 1) ? ~0ull - (r & 0xff) : (r & 0xff); break;    // both ends of the range
          case 5: x = 0x5500 + (r & 0xff); break;                          // one byte differs
          case 6: x = 0x1000 + (r & 0x3f) + ((r >> 8 & 3) << 40); break;  // two bytes apart
        }
      }
      CAPTURE(n);
      CAPTURE(pattern);
      const auto want = reference(v);
      sort_unique_u64(v);
      CHECK(v == want);
    }
  }
}

TEST_CASE("unique collector: a chunk's many pcs come back sorted and unique (radix path)") {
  UniqueCollector c;
  std::vector<uint64_t> all;
  for (uint64_t i = 0; i < 5000; ++i) {
    const uint64_t pc = 0x555555554000ull + ((i * 7919) % 3001) * 3;
    c.add(pc);
    all.push_back(pc);
  }
  CHECK(c.take() == reference(all));
  CHECK(c.take().empty());
}
