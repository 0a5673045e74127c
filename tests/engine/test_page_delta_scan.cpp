// encode_page_delta's scan for changed bytes (16 bytes at a time where SSE2
// is at hand) and its size limit (engine/page_delta_codec.h) write exactly
// the bytes of a plain byte-by-byte encoder of the same format: index
// bytes must not change with the speed-up. Differences sit at every kind
// of position: the first and last byte, either side of a 16-byte and an
// 8-byte boundary, in the known-byte bitmap, in runs with short and long
// gaps.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "engine/page_delta_codec.h"

using namespace ttd;

namespace {

constexpr size_t kBytes = sizeof(Page);

// The format of engine/page_delta_codec.h, one byte at a time: runs of
// changed bytes, equal gaps shorter than 3 bytes kept inside a run.
// Empty when the delta is not shorter than `limit`.
std::vector<uint8_t> reference_delta(const Page& page, const Page* base, uint64_t base_field, size_t limit) {
  static const Page zero{};
  const auto* a = reinterpret_cast<const uint8_t*>(&page);
  const auto* b = reinterpret_cast<const uint8_t*>(base ? base : &zero);
  ByteWriter w;
  w.var(base_field);
  size_t end = 0, i = 0;
  while (i < kBytes && a[i] == b[i]) ++i;
  while (i < kBytes) {
    size_t j = i + 1;
    for (;;) {
      while (j < kBytes && a[j] != b[j]) ++j;
      size_t k = j;
      while (k < kBytes && k - j < 3 && a[k] == b[k]) ++k;
      if (k < kBytes && k - j < 3) {
        j = k;
        continue;
      }
      break;
    }
    w.var(i - end);
    w.var(j - i - 1);
    w.bytes(a + i, j - i);
    end = j;
    i = j;
    while (i < kBytes && a[i] == b[i]) ++i;
  }
  if (w.size() >= std::min(limit, kBytes)) return {};
  return std::vector<uint8_t>(w.data(), w.data() + w.size());
}

std::vector<uint8_t> fast_delta(const Page& page, const Page* base, uint64_t base_field, size_t limit) {
  ByteWriter w;
  if (!encode_page_delta(page, base, base_field, w, limit)) return {};
  return std::vector<uint8_t>(w.data(), w.data() + w.size());
}

void flip(Page& p, size_t at) { reinterpret_cast<uint8_t*>(&p)[at] ^= uint8_t(1 + at % 255); }

}  // namespace

TEST_CASE("page delta scan: single changed bytes at every boundary encode as the byte-wise encoder does") {
  std::mt19937_64 rng(17);
  Page base;
  for (auto& b : base.data) b = uint8_t(rng());
  for (auto& v : base.valid) v = rng();
  std::vector<size_t> positions = {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 4095, 4096, 4097, kBytes - 17, kBytes - 16,
                                   kBytes - 9, kBytes - 8, kBytes - 2, kBytes - 1};
  for (size_t at : positions) {
    CAPTURE(at);
    Page p = base;
    flip(p, at);
    const auto want = reference_delta(p, &base, 5, kBytes);
    REQUIRE_FALSE(want.empty());
    CHECK(fast_delta(p, &base, 5, kBytes) == want);
    // Against the zero page (a page number seen for the first time).
    CHECK(fast_delta(p, nullptr, 0, kBytes) == reference_delta(p, nullptr, 0, kBytes));
  }
  Page same = base;
  CHECK(fast_delta(same, &base, 1, kBytes) == reference_delta(same, &base, 1, kBytes));  // no runs at all
}

TEST_CASE("page delta scan: random scattered changes and size limits encode as the byte-wise encoder does") {
  std::mt19937_64 rng(4242);
  int whole = 0, deltas = 0;
  for (int round = 0; round < 3000; ++round) {
    CAPTURE(round);
    Page base;
    for (auto& b : base.data) b = uint8_t(rng());
    for (auto& v : base.valid) v = rng();
    Page p = base;
    // From one byte to most of the page, in clusters (short and long gaps).
    const size_t changes = size_t(1) << (rng() % 12);
    size_t at = rng() % kBytes;
    for (size_t c = 0; c < changes; ++c) {
      flip(p, at);
      at = (at + 1 + rng() % (rng() % 2 ? 4 : 300)) % kBytes;
    }
    const size_t limit = rng() % 3 == 0 ? kBytes : 1 + rng() % kBytes;
    CAPTURE(changes);
    CAPTURE(limit);
    const auto want = reference_delta(p, &base, round + 1, limit);
    const auto got = fast_delta(p, &base, round + 1, limit);
    CHECK(got == want);
    (want.empty() ? whole : deltas)++;
  }
  // Both outcomes were exercised.
  CHECK(whole > 100);
  CHECK(deltas > 100);
}
