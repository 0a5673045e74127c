// Turns the bytes of a typed value into the short text a debugger shows:
// integers in decimal, pointers in hex (with the string for char *),
// characters quoted, enums by name, aggregates as a summary. A value with
// any unknown byte reads "<unknown>": the trace did not tell, it is not 0.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "debuginfo/debug_types.h"

namespace ttd::dbg {

// `known[i]` != 0 when bytes[i] is known. `mem` (may be empty) is used to
// preview what char pointers point at.
std::string render_value(const TypeDesc& type, std::span<const uint8_t> bytes, std::span<const uint8_t> known,
                         const MemoryReader& mem = {});

// Reads an unsigned little-endian integer of up to 8 bytes.
uint64_t load_le(std::span<const uint8_t> bytes);
// True when the type's value has parts worth expanding (struct members,
// array elements, a pointee).
bool has_children(const TypeDesc& type);

}  // namespace ttd::dbg
