// One FULL record <-> PpcUserState: the opcode, then Darwin's
// ppc_thread_state, ppc_float_state and ppc_vector_state, big-endian
// (offsets in tt6_layout.h). Pads are written as zeros and ignored on read.
#pragma once
#include <cstdint>

#include "formats/tt6/tt6_layout.h"

namespace ttd::fmt::tt6 {

void encode_full_record(uint32_t opcode, const PpcUserState& s, uint8_t out[full::kRecordBytes]);
void decode_full_record(const uint8_t in[full::kRecordBytes], uint32_t& opcode, PpcUserState& s);

}  // namespace ttd::fmt::tt6
