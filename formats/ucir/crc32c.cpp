#include "formats/ucir/crc32c.h"

#include <array>
#include <cstring>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define TTD_CRC32C_X86 1
#endif

namespace ttd::fmt {

namespace {

constexpr uint32_t kPoly = 0x82f63b78u;  // reflected Castagnoli polynomial

using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables make_tables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1u) ? kPoly : 0u);
    t[0][i] = c;
  }
  // t[k][i] = CRC of byte i followed by k zero bytes: lets one step fold
  // eight input bytes at once (slicing-by-8).
  for (uint32_t i = 0; i < 256; ++i)
    for (int k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xffu];
  return t;
}

constexpr Tables kTables = make_tables();

uint32_t update_portable(uint32_t crc, const uint8_t* p, size_t n) {
  while (n && (reinterpret_cast<uintptr_t>(p) & 7u)) {
    crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xffu];
    --n;
  }
  while (n >= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    lo = __builtin_bswap32(lo);
    hi = __builtin_bswap32(hi);
#endif
    lo ^= crc;
    crc = kTables[7][lo & 0xffu] ^ kTables[6][(lo >> 8) & 0xffu] ^ kTables[5][(lo >> 16) & 0xffu] ^
          kTables[4][lo >> 24] ^ kTables[3][hi & 0xffu] ^ kTables[2][(hi >> 8) & 0xffu] ^
          kTables[1][(hi >> 16) & 0xffu] ^ kTables[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xffu];
  return crc;
}

#ifdef TTD_CRC32C_X86
__attribute__((target("sse4.2"))) uint32_t update_sse42_serial(uint32_t crc, const uint8_t* p, size_t n) {
  while (n && (reinterpret_cast<uintptr_t>(p) & 7u)) {
    crc = _mm_crc32_u8(crc, *p++);
    --n;
  }
#if defined(__x86_64__)
  uint64_t c64 = crc;
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c64 = _mm_crc32_u64(c64, v);
    p += 8;
    n -= 8;
  }
  crc = uint32_t(c64);
#endif
  while (n >= 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    crc = _mm_crc32_u32(crc, v);
    p += 4;
    n -= 4;
  }
  while (n--) crc = _mm_crc32_u8(crc, *p++);
  return crc;
}

#if defined(__x86_64__)
// The crc32 instruction takes three cycles but a new one can start every
// cycle, so three independent streams over three equal lanes run about
// three times as fast as one. The lanes are joined by the linearity of the
// CRC register: crc(r, A||B) = shift(crc(r, A), |B|) ^ crc(0, B), where
// shift(x, n), the register after n zero bytes, is linear in x and so
// takes four table lookups for a fixed n.
struct LaneShift {
  size_t lane = 0;                                   // bytes per lane
  std::array<std::array<uint32_t, 256>, 4> table{};  // per byte of x
  uint32_t operator()(uint32_t x) const {
    return table[0][x & 0xffu] ^ table[1][(x >> 8) & 0xffu] ^ table[2][(x >> 16) & 0xffu] ^ table[3][x >> 24];
  }
};

LaneShift make_lane_shift(size_t lane) {
  LaneShift s;
  s.lane = lane;
  const std::vector<uint8_t> zeros(lane, 0);
  uint32_t bit_image[32];
  for (int b = 0; b < 32; ++b) bit_image[b] = update_sse42_serial(1u << b, zeros.data(), lane);
  for (int k = 0; k < 4; ++k)
    for (uint32_t v = 0; v < 256; ++v) {
      uint32_t x = 0;
      for (int b = 0; b < 8; ++b)
        if (v >> b & 1u) x ^= bit_image[8 * k + b];
      s.table[size_t(k)][v] = x;
    }
  return s;
}

// Whole groups of three lanes of s.lane bytes (a multiple of 8).
__attribute__((target("sse4.2"))) uint32_t three_lanes(const LaneShift& s, uint32_t crc, const uint8_t*& p,
                                                       size_t& n) {
  const size_t lane = s.lane;
  while (n >= 3 * lane) {
    uint64_t c0 = crc, c1 = 0, c2 = 0;
    for (size_t i = 0; i < lane; i += 8) {
      uint64_t v0, v1, v2;
      std::memcpy(&v0, p + i, 8);
      std::memcpy(&v1, p + lane + i, 8);
      std::memcpy(&v2, p + 2 * lane + i, 8);
      c0 = _mm_crc32_u64(c0, v0);
      c1 = _mm_crc32_u64(c1, v1);
      c2 = _mm_crc32_u64(c2, v2);
    }
    crc = s(s(uint32_t(c0)) ^ uint32_t(c1)) ^ uint32_t(c2);
    p += 3 * lane;
    n -= 3 * lane;
  }
  return crc;
}
#endif

uint32_t update_sse42(uint32_t crc, const uint8_t* p, size_t n) {
#if defined(__x86_64__)
  // Snappy chunks are at most 64 KiB: two long groups, then short ones.
  static const LaneShift kLong = make_lane_shift(8192), kShort = make_lane_shift(256);
  crc = three_lanes(kLong, crc, p, n);
  crc = three_lanes(kShort, crc, p, n);
#endif
  return update_sse42_serial(crc, p, n);
}

bool detect_sse42() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}
#endif

}  // namespace

bool crc32c_hardware() {
#ifdef TTD_CRC32C_X86
  static const bool hw = detect_sse42();
  return hw;
#else
  return false;
#endif
}

uint32_t crc32c_portable(std::span<const uint8_t> data, uint32_t crc) {
  return ~update_portable(~crc, data.data(), data.size());
}

uint32_t crc32c(std::span<const uint8_t> data, uint32_t crc) {
#ifdef TTD_CRC32C_X86
  if (crc32c_hardware()) return ~update_sse42(~crc, data.data(), data.size());
#endif
  return crc32c_portable(data, crc);
}

}  // namespace ttd::fmt
