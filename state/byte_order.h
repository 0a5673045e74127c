// Fixed-width integer loads and stores in a stated byte order: the one set
// every trace format, the index codec and the front ends use. Each takes a
// pointer to at least as many readable (or writable) bytes as it names;
// bounds are the caller's business (the windowed readers check them once per
// record, not per field). Little-endian loads are single unaligned moves on
// little-endian hosts.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ttd {

inline uint16_t load_le16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap16(v);
  return v;
}
inline uint32_t load_le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}
inline uint64_t load_le64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}
inline int16_t load_le_i16(const uint8_t* p) { return int16_t(load_le16(p)); }
inline int32_t load_le_i32(const uint8_t* p) { return int32_t(load_le32(p)); }
inline int64_t load_le_i64(const uint8_t* p) { return int64_t(load_le64(p)); }

// The value of n <= 8 little-endian bytes, read without a variable-length
// copy through memory (which stalls the load that follows it).
inline uint64_t load_le(const uint8_t* p, size_t n) {
  if (n == 8) return load_le64(p);
  if (n == 4) return load_le32(p);
  uint64_t x = 0;
  for (size_t i = 0; i < n; ++i) x |= uint64_t(p[i]) << (8 * i);
  return x;
}

inline void store_le16(uint8_t* p, uint16_t v) {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap16(v);
  std::memcpy(p, &v, 2);
}
inline void store_le32(uint8_t* p, uint32_t v) {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
}
inline void store_le64(uint8_t* p, uint64_t v) {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}
// The low n <= 8 bytes of v, least significant first.
inline void store_le(uint8_t* p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = uint8_t(v >> (8 * i));
}

// Big-endian (PowerPC TT6 / FULL records, the SQLite file format).
inline uint16_t load_be16(const uint8_t* p) { return uint16_t((uint32_t(p[0]) << 8) | p[1]); }
inline void store_be16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v >> 8);
  p[1] = uint8_t(v);
}
inline uint32_t load_be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}
inline uint64_t load_be64(const uint8_t* p) { return (uint64_t(load_be32(p)) << 32) | load_be32(p + 4); }
inline void store_be32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24);
  p[1] = uint8_t(v >> 16);
  p[2] = uint8_t(v >> 8);
  p[3] = uint8_t(v);
}
inline void store_be64(uint8_t* p, uint64_t v) {
  store_be32(p, uint32_t(v >> 32));
  store_be32(p + 4, uint32_t(v));
}

}  // namespace ttd
