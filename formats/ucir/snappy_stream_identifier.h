// The stream identifier chunk that opens every snappy framing-format
// stream (framing_format.txt, section 4.1): its header and "sNaPpY".
// Shared by SnappyFrameReader, which checks it, and SnappyFrameWriter.
#pragma once
#include <cstdint>

namespace ttd::fmt {

inline constexpr uint8_t kSnappyStreamIdentifier[10] = {0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'};

}  // namespace ttd::fmt
