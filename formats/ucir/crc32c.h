// CRC-32C (Castagnoli), as the snappy framing format checksums its chunks.
// Uses the SSE4.2 crc32 instruction when the CPU has it (three lanes at
// once, above 20 GB/s), slicing-by-8
// tables otherwise; both are well above 1 GB/s, so checksumming never
// dominates reading a trace.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

namespace ttd::fmt {

// CRC-32C of data, continuing from `crc` (0 for a fresh checksum).
uint32_t crc32c(std::span<const uint8_t> data, uint32_t crc = 0);
// The portable table implementation (exposed so tests cover both paths).
uint32_t crc32c_portable(std::span<const uint8_t> data, uint32_t crc = 0);
// True when crc32c() uses the CPU instruction.
bool crc32c_hardware();

// The snappy framing format stores CRCs "masked" so that checksumming data
// that itself holds CRCs stays robust.
inline uint32_t crc32c_mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

}  // namespace ttd::fmt
