// Byte layouts of FDR records per log version (what LLVM calls the
// RecordInitializer). Decoding never reads past the bytes it is given: the
// producer first makes sure a whole record is in memory.
#pragma once
#include <cstdint>
#include <string>

#include "formats/xray/fdr_record.h"

namespace ttd::fmt::xray {

constexpr uint32_t kFunctionRecordSize = 8;
constexpr uint32_t kMetadataRecordSize = 16;

// Metadata kinds as written in bits 1..7 of the first byte.
enum MetadataKind : uint8_t {
  kNewBuffer = 0,
  kEndOfBuffer = 1,
  kNewCpu = 2,
  kTscWrap = 3,
  kWallTime = 4,
  kCustomEvent = 5,
  kCallArgument = 6,
  kBufferExtents = 7,
  kTypedEvent = 8,
  kPid = 9,
  kMetadataKindCount = 10,
};

inline bool is_metadata(uint8_t first_byte) { return first_byte & 1u; }
inline uint8_t metadata_kind(uint8_t first_byte) { return first_byte >> 1; }

// Decodes the 8-byte function record at p. Fails for actions 4..7.
Status decode_function(const uint8_t* p, uint64_t offset, FdrRecord& r, const std::string& where);

// Decodes the 16-byte metadata record at p for log `version` (the payload
// of custom/typed events is not attached here; `payload_size` is set to the
// number of payload bytes that follow the record). Fails for kinds unknown
// or not allowed in this version, and for non-positive event sizes.
Status decode_metadata(const uint8_t* p, uint64_t offset, uint16_t version, FdrRecord& r, uint32_t& payload_size,
                       const std::string& where);

}  // namespace ttd::fmt::xray
