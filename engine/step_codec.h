// The index's encoding of the step stream inside one chunk. Each step is a
// header byte, then only what differs from the prediction (thread as the
// previous step's; pc and size as the chunk's earlier visits of the pc
// predict, engine/step_pc_memo.h; kind), then effect and attribute blocks
// prefixed by their byte length so scans can skip them. Register values of
// up to 64 bits are stored as the difference from the same register's last
// value in the chunk, so a counter increment costs one byte. A memory
// access is one tag byte (kind, size, which recent access its address is
// near) and the address's distance from there; small written values are
// varints. Encoder and decoder state resets at each chunk start: any
// chunk decodes on its own.
#pragma once

// The pieces, each in its own header:
//   engine/step_format.h         the byte layout: header bits, tags
//   engine/step_chunk_history.h  what encoder and decoder both remember in a chunk
//   engine/step_encoder.h        StepEncoder
//   engine/step_decoder.h        StepDecoder, DecodedStep
#include "engine/step_chunk_history.h"
#include "engine/step_decoder.h"
#include "engine/step_encoder.h"
#include "engine/step_format.h"
