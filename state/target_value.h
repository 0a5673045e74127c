// A register value held in its target's byte order, as a number: the one
// place that knows big-endian targets keep the low-order bytes at the end.
// Kept out of state/byte_order.h (which nearly every file includes) so that
// only its users depend on it.
#pragma once
#include <cstddef>
#include <cstdint>

#include "state/arch.h"
#include "state/byte_order.h"

namespace ttd {

// The low-order (at most 8) bytes of a size-byte value stored in `order`.
inline uint64_t target_value_u64(Endian order, const uint8_t* p, size_t size) {
  const size_t n = size < 8 ? size : 8;
  if (order == Endian::Little) return load_le(p, n);
  uint64_t x = 0;
  for (size_t i = 0; i < n; ++i) x |= uint64_t(p[size - 1 - i]) << (8 * i);
  return x;
}

// Stores v as a size-byte value in `order`: its low-order (at most 8)
// bytes, the rest zero.
inline void store_target_value(Endian order, uint8_t* p, size_t size, uint64_t v) {
  const size_t n = size < 8 ? size : 8;
  for (size_t i = n; i < size; ++i) p[order == Endian::Little ? i : size - 1 - i] = 0;
  if (order == Endian::Little) return store_le(p, v, n);
  for (size_t i = 0; i < n; ++i) p[size - 1 - i] = uint8_t(v >> (8 * i));
}

}  // namespace ttd
