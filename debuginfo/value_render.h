// Turns the bytes of a typed value into the short text a debugger shows:
// integers in decimal, pointers in hex (with the string for char *),
// characters quoted, enums by name, aggregates as a summary. A value with
// any unknown byte reads "<unknown>": the trace did not tell, it is not 0.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>

#include "debuginfo/debug_types.h"
#include "state/byte_order.h"

namespace ttd::dbg {

// `known[i]` != 0 when bytes[i] is known. `mem` (may be empty) is used to
// preview what char pointers point at.
std::string render_value(const TypeDesc& type, std::span<const uint8_t> bytes, std::span<const uint8_t> known,
                         const MemoryReader& mem = {});

// The unsigned little-endian integer in the first (up to) 8 bytes: the
// project's one loader (state/byte_order.h) over a span.
inline uint64_t load_le(std::span<const uint8_t> bytes) {
  return ttd::load_le(bytes.data(), std::min<size_t>(bytes.size(), 8));
}
// True when the type's value has parts worth expanding (struct members,
// array elements, a pointee).
bool has_children(const TypeDesc& type);

}  // namespace ttd::dbg
