#include "engine/page_delta_codec.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ttd {

namespace {
constexpr size_t kPageBytes = sizeof(Page);
// Unchanged bytes inside a run cost one byte each; a new run costs its
// two header varints. Gaps shorter than this are kept inside the run.
constexpr size_t kMergeGap = 3;

// The first differing byte at or after i (kPageBytes if none). Most of a
// page is unchanged, so this scan is most of a delta's cost: 16 bytes a
// step where SSE2 is at hand (every x86-64), whole words otherwise.
size_t next_diff(const uint8_t* a, const uint8_t* b, size_t i) {
#if defined(__SSE2__)
  static_assert(kPageBytes % 16 == 0);
  while (i < kPageBytes && (i & 15)) {
    if (a[i] != b[i]) return i;
    ++i;
  }
  for (; i < kPageBytes; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
    const unsigned same = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
    if (same != 0xffffu) return i + size_t(__builtin_ctz(~same));
  }
  return kPageBytes;
#else
  while (i < kPageBytes && (i & 7)) {
    if (a[i] != b[i]) return i;
    ++i;
  }
  for (; i + 8 <= kPageBytes; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    if (x != y) break;
  }
  while (i < kPageBytes && a[i] == b[i]) ++i;
  return i;
#endif
}
}  // namespace

bool encode_page_delta(const Page& page, const Page* base, uint64_t base_field, ByteWriter& out, size_t limit) {
  limit = std::min(limit, kPageBytes);
  static const Page zero{};
  const auto* a = reinterpret_cast<const uint8_t*>(&page);
  const auto* b = reinterpret_cast<const uint8_t*>(base ? base : &zero);
  const size_t start = out.size();
  out.var(base_field);
  size_t end = 0;  // of the previous run
  size_t i = next_diff(a, b, 0);
  while (i < kPageBytes) {
    // Extend the run over differing bytes and short equal gaps.
    size_t j = i + 1;
    for (;;) {
      while (j < kPageBytes && a[j] != b[j]) ++j;
      size_t k = j;
      while (k < kPageBytes && k - j < kMergeGap && a[k] == b[k]) ++k;
      if (k < kPageBytes && k - j < kMergeGap) {
        j = k;  // a short gap, then more differences
        continue;
      }
      break;
    }
    out.var(i - end);
    out.var(j - i - 1);
    out.bytes(a + i, j - i);
    if (out.size() - start >= limit) return false;
    end = j;
    i = next_diff(a, b, j);
  }
  return out.size() - start < limit;
}

const char* parse_page_delta(const uint8_t* data, size_t size, uint64_t own_id, PageDeltaHead& out) {
  if (size >= kPageBytes) return "a page delta as large as a page";
  ByteReader r(data, size);
  uint64_t base = r.var();
  if (!r.ok()) return "page delta cut short before its base";
  out.zero_base = base == 0;
  out.base_id = base - 1;
  if (!out.zero_base && out.base_id >= own_id) return "page delta's base is not an older page (a cycle)";
  out.runs_at = size - r.remaining();
  return nullptr;
}

const char* apply_page_delta(const uint8_t* data, size_t size, const PageDeltaHead& head, Page& page) {
  auto* p = reinterpret_cast<uint8_t*>(&page);
  ByteReader r(data + head.runs_at, size - head.runs_at);
  uint64_t at = 0;
  while (!r.at_end()) {
    uint64_t gap = r.var(), len = r.var();
    if (!r.ok()) return "page delta run cut short";
    if (gap > kPageBytes - at || len >= kPageBytes - at - gap) return "page delta writes past the page";
    at += gap;
    ++len;
    const uint8_t* bytes = r.take(len);
    if (!bytes) return "page delta run cut short";
    std::memcpy(p + at, bytes, len);
    at += len;
  }
  return nullptr;
}

const char* check_page_blob(const uint8_t* data, size_t size, uint64_t own_id) {
  if (size == kPageBytes) return nullptr;
  PageDeltaHead head;
  if (const char* e = parse_page_delta(data, size, own_id, head)) return e;
  static thread_local Page scratch;
  return apply_page_delta(data, size, head, scratch);
}

}  // namespace ttd
