// The history queries' names for the engine's one chunk decoder
// (engine/chunk_steps.h), which motion searches (engine/chunk_scan.h) use
// too. Queries skip chunks by their summaries, so a chunk whose summary is
// damaged is refused (DamagedSummary::Refuse, the default), not decoded.
#pragma once
#include "engine/chunk_steps.h"

namespace ttd::query {

using ChunkReader = ChunkSteps;
using StepView = ChunkStep;
using ttd::corrupt_chunk;

}  // namespace ttd::query
